"""SQL for conversations and their UI history (`messages`), shared by gateway and workers."""

from __future__ import annotations

import uuid
from typing import Any

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

TITLE_LIMIT = 50


async def get_conversation(conn: AsyncConnection, thread_id: uuid.UUID | str, user_id: str) -> dict[str, Any] | None:
    """The thread if it belongs to this user (RLS already restricts the tenant)."""
    return await (
        await conn.execute("SELECT * FROM conversations WHERE thread_id = %s AND user_id = %s", (thread_id, user_id))
    ).fetchone()


async def create_conversation(
    conn: AsyncConnection, thread_id: uuid.UUID, tenant_id: uuid.UUID, user_id: str, kind: str = "workspace"
) -> None:
    await conn.execute(
        "INSERT INTO conversations (thread_id, tenant_id, user_id, kind) VALUES (%s, %s, %s, %s)"
        " ON CONFLICT (thread_id) DO NOTHING",
        (thread_id, tenant_id, user_id, kind),
    )


async def add_message(
    conn: AsyncConnection,
    *,
    message_id: uuid.UUID,
    thread_id: uuid.UUID | str,
    tenant_id: uuid.UUID | str,
    role: str,
    content: str,
    metadata: dict[str, Any] | None = None,
) -> None:
    """Insert once: the id is derived from the run, so a replayed stage adds nothing."""
    await conn.execute(
        "INSERT INTO messages (id, thread_id, tenant_id, role, content, metadata) VALUES (%s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (id) DO NOTHING",
        (message_id, thread_id, tenant_id, role, content, Jsonb(metadata or {})),
    )
    await conn.execute(
        "UPDATE conversations SET last_message_at = now(),"
        " title = COALESCE(title, CASE WHEN %s = 'user' THEN left(%s, %s) END) WHERE thread_id = %s",
        (role, " ".join(content.split()), TITLE_LIMIT, thread_id),
    )


async def history(conn: AsyncConnection, thread_id: uuid.UUID | str, limit: int) -> list[dict[str, Any]]:
    rows = await (
        await conn.execute(
            "SELECT id, role, content, metadata, created_at FROM messages WHERE thread_id = %s"
            " ORDER BY created_at DESC, id LIMIT %s",
            (thread_id, limit),
        )
    ).fetchall()
    return list(reversed(rows))


async def stage_done(conn: AsyncConnection, run_id: uuid.UUID, stage: str) -> dict[str, Any] | None:
    return await (
        await conn.execute("SELECT outcome FROM run_stages WHERE run_id = %s AND stage = %s", (run_id, stage))
    ).fetchone()


async def record_stage(
    conn: AsyncConnection,
    *,
    run_id: uuid.UUID,
    stage: str,
    tenant_id: uuid.UUID,
    thread_id: uuid.UUID,
    outcome: dict[str, Any],
) -> None:
    await conn.execute(
        "INSERT INTO run_stages (run_id, stage, tenant_id, thread_id, outcome) VALUES (%s, %s, %s, %s, %s)"
        " ON CONFLICT DO NOTHING",
        (run_id, stage, tenant_id, thread_id, Jsonb(outcome)),
    )
