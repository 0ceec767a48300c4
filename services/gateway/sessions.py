"""Issuing sessions: a short-lived access JWT (what every API route already accepts) and a
refresh token that is rotated on each use and stored only as a hash."""

from __future__ import annotations

import uuid

from shared.auth.opaque import digest, new_token
from shared.auth.tokens import mint_token
from shared.config import Settings
from shared.contracts.accounts import Session
from shared.db import sessions
from shared.db.conn import Conn


async def issue_session(
    conn: Conn,
    settings: Settings,
    tenant_id: uuid.UUID,
    account: dict,
    family_id: uuid.UUID | None = None,
) -> Session:
    """New tokens for the account; `family_id` continues a rotation chain (refresh), else a new sign-in."""
    refresh = new_token(tenant_id)
    await sessions.store(
        conn,
        token_hash=digest(refresh),
        tenant_id=tenant_id,
        user_id=account["user_id"],
        family_id=family_id or uuid.uuid4(),
        ttl_s=settings.refresh_token_ttl_s,
    )
    access = mint_token(
        settings.jwt_secret(),
        tenant_id=tenant_id,
        sub=account["user_id"],
        role=account["role"],
        ttl_s=settings.access_token_ttl_s,
    )
    return Session(
        access_token=access,
        refresh_token=refresh,
        expires_in=settings.access_token_ttl_s,
        user_id=account["user_id"],
        tenant_id=tenant_id,
        role=account["role"],
        onboarded=account["onboarded_at"] is not None,
    )
