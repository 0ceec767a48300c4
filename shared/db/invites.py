"""Invites: a one-time link an admin hands to a colleague; only its hash is stored."""

from __future__ import annotations

import uuid

from shared.db.conn import Conn, one

INVITE_COLUMNS = "id, email, role, expires_at, accepted_at, created_by"


async def create_invite(
    conn: Conn, *, tenant_id: uuid.UUID, email: str, role: str, token_hash: str, created_by: str, ttl_s: int
) -> dict:
    return await one(
        await conn.execute(
            "INSERT INTO invites (id, tenant_id, email, role, token_hash, created_by, expires_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, now() + make_interval(secs => %s))"
            f" RETURNING {INVITE_COLUMNS}",
            (uuid.uuid4(), tenant_id, email, role, token_hash, created_by, ttl_s),
        )
    )


async def open_invite(conn: Conn, token_hash: str) -> dict | None:
    """The unaccepted, unexpired invite with this hash, locked until the transaction ends."""
    return await (
        await conn.execute(
            f"SELECT {INVITE_COLUMNS} FROM invites WHERE token_hash = %s"
            " AND accepted_at IS NULL AND expires_at > now() FOR UPDATE",
            (token_hash,),
        )
    ).fetchone()


async def mark_accepted(conn: Conn, invite_id: uuid.UUID) -> None:
    await conn.execute("UPDATE invites SET accepted_at = now() WHERE id = %s", (invite_id,))
