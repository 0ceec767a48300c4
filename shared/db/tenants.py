"""Tenant provisioning (demo tenant at `up`, test fixtures, later the admin API)."""

from __future__ import annotations

import uuid

import psycopg
from psycopg.rows import dict_row

from shared.db.conn import Conn, one


async def ensure_tenant(
    url: str, tenant_id: uuid.UUID | str, name: str, user_id: str | None = None, user_name: str | None = None
) -> None:
    """Create the tenant (and a user) if missing. Sets app.tenant_id so FORCE RLS lets the row in.

    `user_name` is the user's display name; without one the user id stands in. A user whose display
    name is still its id (created before it had a name) gets the name."""
    async with await psycopg.AsyncConnection.connect(url, row_factory=dict_row) as conn, conn.transaction():
        await conn.execute("SELECT set_config('app.tenant_id', %s, true)", (str(tenant_id),))
        await conn.execute(
            "INSERT INTO tenants (id, name) VALUES (%s, %s) ON CONFLICT (id) DO NOTHING", (tenant_id, name)
        )
        if user_id:
            await conn.execute(
                "INSERT INTO users (id, tenant_id, display_name) VALUES (%s, %s, %s) ON CONFLICT (tenant_id, id) "
                "DO UPDATE SET display_name = EXCLUDED.display_name WHERE users.display_name IS NULL "
                "OR users.display_name = users.id",
                (user_id, tenant_id, user_name or user_id),
            )


async def tenant_exists(url: str, tenant_id: uuid.UUID | str) -> bool:
    """Whether the tenant is registered (read as that tenant, the only way FORCE RLS shows the row)."""
    async with await psycopg.AsyncConnection.connect(url, row_factory=dict_row) as conn, conn.transaction():
        await conn.execute("SELECT set_config('app.tenant_id', %s, true)", (str(tenant_id),))
        row = await (await conn.execute("SELECT 1 FROM tenants WHERE id = %s", (tenant_id,))).fetchone()
    return row is not None


TENANT_COLUMNS = "id, name, allowed_domains, created_at"


async def create_tenant(
    conn: Conn, tenant_id: uuid.UUID, name: str, allowed_domains: list[str]
) -> dict:
    """Insert within a transaction whose app.tenant_id is the new id (FORCE RLS checks it)."""
    return await one(
        await conn.execute(
            f"INSERT INTO tenants (id, name, allowed_domains) VALUES (%s, %s, %s) RETURNING {TENANT_COLUMNS}",
            (tenant_id, name, allowed_domains),
        )
    )


async def get_tenant(conn: Conn, tenant_id: uuid.UUID) -> dict | None:
    return await (await conn.execute(f"SELECT {TENANT_COLUMNS} FROM tenants WHERE id = %s", (tenant_id,))).fetchone()


async def set_allowed_domains(conn: Conn, tenant_id: uuid.UUID, domains: list[str]) -> dict | None:
    return await (
        await conn.execute(
            f"UPDATE tenants SET allowed_domains = %s WHERE id = %s RETURNING {TENANT_COLUMNS}", (domains, tenant_id)
        )
    ).fetchone()


async def is_registered(conn: Conn, tenant_id: uuid.UUID) -> bool:
    """Whether the tenant exists, read in the caller's tenant transaction (FORCE RLS shows only that row)."""
    return await (await conn.execute("SELECT 1 FROM tenants WHERE id = %s", (tenant_id,))).fetchone() is not None


async def allowed_domains(conn: Conn, tenant_id: uuid.UUID) -> list[str] | None:
    """The page origins that may embed the tenant's widget; None for an unknown tenant."""
    row = await (await conn.execute("SELECT allowed_domains FROM tenants WHERE id = %s", (tenant_id,))).fetchone()
    return None if row is None else row["allowed_domains"]
