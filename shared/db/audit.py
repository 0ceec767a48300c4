"""The append-only audit log: one typed way to record and read it (docs/architecture.md §3).

Rows are tenant-scoped under RLS and the app role holds only INSERT and SELECT on the table,
so what is written here cannot be rewritten by the application afterwards.
"""

from __future__ import annotations

import uuid
from typing import Any

from psycopg.types.json import Jsonb

from shared.contracts.accounts import AuditAction
from shared.db.conn import Conn
from shared.db.pool import Database, tenant_tx
from shared.telemetry.trace import current_traceparent
from shared.telemetry.trace import trace_id as trace_of

INSERT = "INSERT INTO audit_log (tenant_id, actor, action, target, detail, trace_id) VALUES (%s, %s, %s, %s, %s, %s)"


async def record(
    conn_or_pool: Conn | Database,
    tenant: uuid.UUID | str,
    actor: str,
    action: AuditAction,
    target: str | None = None,
    detail: dict[str, Any] | None = None,
    trace_id: str | None = None,
) -> None:
    """Append one entry. A connection must already be in a transaction scoped to `tenant`
    (the caller's change and its audit entry then commit together); a Database opens one."""
    trace = trace_id or trace_of(current_traceparent.get())
    args = (str(tenant), actor, action, target, Jsonb(detail or {}), trace)
    if isinstance(conn_or_pool, Database):
        async with tenant_tx(conn_or_pool, tenant) as conn:
            await conn.execute(INSERT, args)
    else:
        await conn_or_pool.execute(INSERT, args)


async def record_as_owner(
    url: str, tenant: uuid.UUID | str, actor: str, action: AuditAction, target: str, detail: dict[str, Any]
) -> None:
    """Append from an operator's CLI, which holds the owner URL rather than an application pool."""
    async with await Conn.connect(url) as conn, conn.transaction():
        await conn.execute("SELECT set_config('app.tenant_id', %s, true)", (str(tenant),))
        await record(conn, tenant, actor, action, target, detail)


async def page(conn: Conn, *, limit: int, before: int | None = None) -> list[dict]:
    """Newest first; `before` is the smallest id of the previous page (keyset paging)."""
    rows = await conn.execute(
        "SELECT id, actor, action, target, detail, trace_id, created_at FROM audit_log"
        " WHERE (%(before)s::bigint IS NULL OR id < %(before)s) ORDER BY id DESC LIMIT %(limit)s",
        {"before": before, "limit": limit},
    )
    return await rows.fetchall()
