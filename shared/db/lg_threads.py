"""SQL for conversations seen as LangGraph threads: metadata (stamped with the graph and assistant
ids Agent Chat UI filters on) and searches over it."""

from __future__ import annotations

import uuid
from typing import Any

from psycopg.types.json import Jsonb

from shared.db.conn import Conn

GRAPH_ID = "policypal"
# What every thread says about itself, whether it was started here or through /v1.
STAMP_SQL = "jsonb_build_object('graph_id', 'policypal', 'assistant_id', 'policypal')"
SORTS = {"thread_id": "c.thread_id", "status": "c.status", "created_at": "c.created_at", "updated_at": "updated_at"}
COLUMNS = (
    "c.thread_id, c.status, c.run_started_at, c.created_at, c.kind,"
    " COALESCE(c.last_message_at, c.created_at) AS updated_at, c.metadata || " + STAMP_SQL + " AS metadata"
)


async def create_thread(
    conn: Conn, thread_id: uuid.UUID, tenant_id: uuid.UUID, user_id: str, metadata: dict[str, Any]
) -> bool:
    """False when the id is taken (by this user or anyone else)."""
    row = await (
        await conn.execute(
            "INSERT INTO conversations (thread_id, tenant_id, user_id, kind, metadata)"
            " VALUES (%s, %s, %s, 'workspace', %s)"
            " ON CONFLICT (thread_id) DO NOTHING RETURNING thread_id",
            (thread_id, tenant_id, user_id, Jsonb(metadata)),
        )
    ).fetchone()
    return row is not None


async def get_thread(conn: Conn, thread_id: uuid.UUID, user_id: str) -> dict[str, Any] | None:
    return await (
        await conn.execute(
            f"SELECT {COLUMNS} FROM conversations c WHERE c.thread_id = %s AND c.user_id = %s AND c.kind = 'workspace'",
            (thread_id, user_id),
        )
    ).fetchone()


async def search_threads(
    conn: Conn,
    user_id: str,
    *,
    metadata: dict[str, Any],
    ids: list[uuid.UUID] | None,
    limit: int,
    offset: int,
    sort_by: str,
    descending: bool,
) -> list[dict[str, Any]]:
    order = f"{SORTS[sort_by]} {'DESC' if descending else 'ASC'}, c.thread_id"
    return await (
        await conn.execute(
            f"SELECT {COLUMNS} FROM conversations c WHERE c.user_id = %s AND c.kind = 'workspace'"
            f" AND (c.metadata || {STAMP_SQL}) @> %s AND (%s::uuid[] IS NULL OR c.thread_id = ANY(%s))"
            f" ORDER BY {order} LIMIT %s OFFSET %s",
            (user_id, Jsonb(metadata), ids, ids, limit, offset),
        )
    ).fetchall()


async def merge_metadata(conn: Conn, thread_id: uuid.UUID, user_id: str, metadata: dict[str, Any]) -> bool:
    result = await conn.execute(
        "UPDATE conversations SET metadata = metadata || %s"
        " WHERE thread_id = %s AND user_id = %s AND kind = 'workspace'",
        (Jsonb(metadata), thread_id, user_id),
    )
    return result.rowcount > 0


async def copy_thread(conn: Conn, source: uuid.UUID, target: uuid.UUID, user_id: str) -> bool:
    """A new idle thread of the same user with the source's title, metadata and messages (new message
    ids, the same times, so a copied checkpoint still sees the messages written before it). False
    when the source is not the caller's workspace thread."""
    row = await (
        await conn.execute(
            "INSERT INTO conversations (thread_id, tenant_id, user_id, kind, title, metadata, last_message_at)"
            " SELECT %s, tenant_id, user_id, kind, title, metadata, last_message_at FROM conversations"
            " WHERE thread_id = %s AND user_id = %s AND kind = 'workspace' RETURNING thread_id",
            (target, source, user_id),
        )
    ).fetchone()
    if row is None:
        return False
    await conn.execute(
        "INSERT INTO messages (id, thread_id, tenant_id, role, content, metadata, created_at)"
        " SELECT gen_random_uuid(), %s, tenant_id, role, content, metadata, created_at FROM messages"
        " WHERE thread_id = %s",
        (target, source),
    )
    return True
