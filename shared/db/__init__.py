"""Postgres access: pools, tenant-scoped transactions (RLS) and migrations."""

from shared.db.pool import Database, open_database, tenant_tx

__all__ = ["Database", "open_database", "tenant_tx"]
