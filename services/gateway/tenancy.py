"""Checks that the token's tenant exists and that its user has a row, before first writes."""

from __future__ import annotations

from psycopg import AsyncConnection

from services.gateway.errors import ApiError
from shared.auth.tokens import Principal


async def ensure_user(conn: AsyncConnection, p: Principal) -> None:
    exists = await (await conn.execute("SELECT 1 FROM tenants WHERE id = %s", (p.tenant_id,))).fetchone()
    if not exists:
        raise ApiError(403, "unknown_tenant", "the token's tenant is not registered")
    await conn.execute(
        "INSERT INTO users (id, tenant_id) VALUES (%s, %s) ON CONFLICT DO NOTHING", (p.user_id, p.tenant_id)
    )
