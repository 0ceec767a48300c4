"""Refresh tokens: stored hashed, rotated on every use, revoked by family on reuse or sign-out."""

from __future__ import annotations

import uuid
from typing import Literal

from shared.db.conn import Conn

Outcome = Literal["ok", "unknown", "expired", "revoked", "reused"]


async def store(
    conn: Conn, *, token_hash: str, tenant_id: uuid.UUID, user_id: str, family_id: uuid.UUID, ttl_s: int
) -> None:
    await conn.execute(
        "INSERT INTO refresh_tokens (token_hash, tenant_id, user_id, family_id, expires_at)"
        " VALUES (%s, %s, %s, %s, now() + make_interval(secs => %s))",
        (token_hash, tenant_id, user_id, family_id, ttl_s),
    )


async def consume(conn: Conn, token_hash: str) -> tuple[Outcome, dict | None]:
    """Mark the token rotated and return its row. A token presented after its rotation is a
    replay (stolen or raced): its whole family is revoked and the caller must sign in again."""
    row = await (
        await conn.execute(
            "SELECT user_id, family_id, rotated_at, revoked_at, expires_at < now() AS expired"
            " FROM refresh_tokens WHERE token_hash = %s FOR UPDATE",
            (token_hash,),
        )
    ).fetchone()
    if row is None:
        return "unknown", None
    if row["revoked_at"] is not None:
        return "revoked", row
    if row["rotated_at"] is not None:
        await revoke_family(conn, row["family_id"])
        return "reused", row
    if row["expired"]:
        return "expired", row
    await conn.execute("UPDATE refresh_tokens SET rotated_at = now() WHERE token_hash = %s", (token_hash,))
    return "ok", row


async def revoke_family(conn: Conn, family_id: uuid.UUID) -> None:
    await conn.execute(
        "UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = %s AND revoked_at IS NULL", (family_id,)
    )


async def revoke_user(conn: Conn, user_id: str) -> None:
    """Every session of the user (on disable)."""
    await conn.execute(
        "UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = %s AND revoked_at IS NULL", (user_id,)
    )
