"""Checks that the token's tenant exists and that its user has a row, before first writes."""

from __future__ import annotations

from services.gateway.errors import ApiError
from shared.auth.tokens import Principal
from shared.db import tenants, users
from shared.db.conn import Conn


async def ensure_user(conn: Conn, p: Principal) -> None:
    if not await tenants.is_registered(conn, p.tenant_id):
        raise ApiError(403, "unknown_tenant", "the token's tenant is not registered")
    await users.ensure_user(conn, p.user_id, p.tenant_id)
