"""SQL for conversations and their UI history (`messages`), shared by gateway and workers."""

from __future__ import annotations

import uuid
from typing import Any

from psycopg.types.json import Jsonb

from shared.db.conn import Conn

TITLE_LIMIT = 50


async def get_conversation(conn: Conn, thread_id: uuid.UUID | str, user_id: str) -> dict[str, Any] | None:
    """The thread if it belongs to this user (RLS already restricts the tenant)."""
    return await (
        await conn.execute("SELECT * FROM conversations WHERE thread_id = %s AND user_id = %s", (thread_id, user_id))
    ).fetchone()


async def create_conversation(
    conn: Conn, thread_id: uuid.UUID, tenant_id: uuid.UUID, user_id: str, kind: str = "workspace"
) -> None:
    await conn.execute(
        "INSERT INTO conversations (thread_id, tenant_id, user_id, kind) VALUES (%s, %s, %s, %s)"
        " ON CONFLICT (thread_id) DO NOTHING",
        (thread_id, tenant_id, user_id, kind),
    )


async def claim_thread(
    conn: Conn, thread_id: uuid.UUID, user_id: str, run_id: uuid.UUID, stale_after_s: float
) -> bool:
    """Mark the thread busy with `run_id`; False while another run holds a fresh claim."""
    row = await (
        await conn.execute(
            "UPDATE conversations SET status = 'running', current_run_id = %s, run_started_at = now()"
            " WHERE thread_id = %s AND user_id = %s"
            " AND (status <> 'running' OR run_started_at < now() - make_interval(secs => %s)) RETURNING thread_id",
            (run_id, thread_id, user_id, stale_after_s),
        )
    ).fetchone()
    return row is not None


async def start_turn(
    conn: Conn,
    *,
    thread_id: uuid.UUID,
    tenant_id: uuid.UUID | str,
    user_id: str,
    run_id: uuid.UUID,
    message: str,
    stale_after_s: float,
    metadata: dict[str, Any],
) -> bool:
    """Claim the thread and write the user's message: how every turn starts (the UI history is written
    before the run, the answer after it). False, with nothing written, while another run holds it."""
    if not await claim_thread(conn, thread_id, user_id, run_id, stale_after_s):
        return False
    await add_message(
        conn,
        message_id=uuid.uuid5(run_id, "user"),
        thread_id=thread_id,
        tenant_id=tenant_id,
        role="user",
        content=message,
        metadata={"run_id": str(run_id), **metadata},
    )
    return True


async def release_thread(conn: Conn, thread_id: uuid.UUID | str, run_id: uuid.UUID | str) -> None:
    """The run ended (answer, question, or error): the thread takes the next turn."""
    await conn.execute(
        "UPDATE conversations SET status = 'idle' WHERE thread_id = %s AND current_run_id = %s", (thread_id, run_id)
    )


async def list_conversations(
    conn: Conn, user_id: str, limit: int, before: tuple[Any, uuid.UUID] | None
) -> list[dict[str, Any]]:
    """Newest first (last activity, then thread id), after the keyset cursor `before`, with a preview."""
    before_at, before_id = before or (None, None)
    return await (
        await conn.execute(
            "SELECT c.thread_id, c.title, c.kind, c.status, c.last_message_at, c.created_at,"
            " COALESCE(c.last_message_at, c.created_at) AS activity_at,"
            " (SELECT left(m.content, 120) FROM messages m WHERE m.thread_id = c.thread_id AND m.role <> 'system'"
            "  ORDER BY m.created_at DESC LIMIT 1) AS last_message_preview"
            " FROM conversations c WHERE c.user_id = %s"
            " AND (%s::timestamptz IS NULL OR (COALESCE(c.last_message_at, c.created_at), c.thread_id) < (%s, %s))"
            " ORDER BY COALESCE(c.last_message_at, c.created_at) DESC, c.thread_id DESC LIMIT %s",
            (user_id, before_at, before_at, before_id, limit),
        )
    ).fetchall()


async def rename_conversation(conn: Conn, thread_id: uuid.UUID, user_id: str, title: str) -> dict[str, Any] | None:
    """The renamed thread, or None when this user has no such thread."""
    return await (
        await conn.execute(
            "UPDATE conversations SET title = %s WHERE thread_id = %s AND user_id = %s RETURNING *",
            (title, thread_id, user_id),
        )
    ).fetchone()


async def delete_conversation(conn: Conn, thread_id: uuid.UUID, user_id: str) -> bool:
    """Messages go with it (ON DELETE CASCADE); checkpoints are removed by the caller's saver."""
    result = await conn.execute("DELETE FROM conversations WHERE thread_id = %s AND user_id = %s", (thread_id, user_id))
    return result.rowcount > 0


async def add_message(
    conn: Conn,
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
        (role, automatic_title(content), TITLE_LIMIT, thread_id),
    )


async def history(conn: Conn, thread_id: uuid.UUID | str, limit: int) -> list[dict[str, Any]]:
    rows = await (
        await conn.execute(
            "SELECT id, role, content, metadata, created_at FROM messages WHERE thread_id = %s"
            " ORDER BY created_at DESC, id LIMIT %s",
            (thread_id, limit),
        )
    ).fetchall()
    return list(reversed(rows))


STOP_STAGE = "stop"


async def running_run(conn: Conn, thread_id: uuid.UUID, user_id: str) -> uuid.UUID | None:
    """The run holding the thread's claim, if one is running."""
    row = await (
        await conn.execute(
            "SELECT current_run_id FROM conversations WHERE thread_id = %s AND user_id = %s AND status = 'running'",
            (thread_id, user_id),
        )
    ).fetchone()
    return row["current_run_id"] if row else None


async def stop_requested(conn: Conn, run_id: uuid.UUID) -> bool:
    """Whether the user stopped this run (recorded as its `stop` stage)."""
    return await stage_done(conn, run_id, STOP_STAGE) is not None


async def stage_done(conn: Conn, run_id: uuid.UUID, stage: str) -> dict[str, Any] | None:
    return await (
        await conn.execute("SELECT outcome FROM run_stages WHERE run_id = %s AND stage = %s", (run_id, stage))
    ).fetchone()


async def record_stage(
    conn: Conn,
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


def automatic_title(first_message: str) -> str:
    return " ".join(first_message.split())[:TITLE_LIMIT]


async def retitle_automatic(conn: Conn, thread_id: uuid.UUID | str, first_message: str, title: str) -> None:
    """Replace the title taken from the first message; a title the user chose is left alone."""
    await conn.execute(
        "UPDATE conversations SET title = %s WHERE thread_id = %s AND title = %s",
        (title[:TITLE_LIMIT], thread_id, automatic_title(first_message)),
    )
