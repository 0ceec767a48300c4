"""SQL for LangGraph-protocol runs (`lg_runs`): created by the gateway, finished by the worker that
publishes the run's terminal event, and the per-thread queue of enqueued runs."""

from __future__ import annotations

import uuid
from typing import Any, get_args

from psycopg.types.json import Jsonb

from shared.contracts.common import MessageKind
from shared.db.conn import Conn, one

# The terminal thread event that ends a run → the run's status in the LangGraph vocabulary.
# The thread's newest checkpoint (LangGraph's checkpoint ids sort by time).
BASE_CHECKPOINT = "(SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = %s AND checkpoint_ns = '')"
STATUS_BY_TERMINAL = {"response": "success", "interrupt": "interrupted", "escalation": "interrupted", "error": "error"}


async def create_run(
    conn: Conn,
    *,
    run_id: uuid.UUID,
    thread_id: uuid.UUID,
    tenant_id: uuid.UUID,
    user_id: str,
    assistant_id: str,
    status: str,
    multitask_strategy: str,
    metadata: dict[str, Any],
    kwargs: dict[str, Any],
    start_seq: int,
    queued_command: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return await one(
        await conn.execute(
            "INSERT INTO lg_runs (run_id, thread_id, tenant_id, user_id, assistant_id, status, multitask_strategy,"
            " metadata, kwargs, start_seq, queued_command, base_checkpoint_id)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, " + BASE_CHECKPOINT + ") RETURNING *",
            (
                run_id,
                thread_id,
                tenant_id,
                user_id,
                assistant_id,
                status,
                multitask_strategy,
                Jsonb(metadata),
                Jsonb(kwargs),
                start_seq,
                Jsonb(queued_command) if queued_command is not None else None,
                str(thread_id),
            ),
        )
    )


async def get_run(
    conn: Conn, thread_id: uuid.UUID, run_id: uuid.UUID, user_id: str
) -> dict[str, Any] | None:
    return await (
        await conn.execute(
            "SELECT * FROM lg_runs WHERE run_id = %s AND thread_id = %s AND user_id = %s", (run_id, thread_id, user_id)
        )
    ).fetchone()


async def list_runs(
    conn: Conn, thread_id: uuid.UUID, user_id: str, limit: int, offset: int, status: str | None
) -> list[dict[str, Any]]:
    return await (
        await conn.execute(
            "SELECT * FROM lg_runs WHERE thread_id = %s AND user_id = %s AND (%s::text IS NULL OR status = %s)"
            " ORDER BY created_at DESC LIMIT %s OFFSET %s",
            (thread_id, user_id, status, status, limit, offset),
        )
    ).fetchall()


async def set_status(conn: Conn, run_id: uuid.UUID | str, status: str) -> None:
    await conn.execute(
        "UPDATE lg_runs SET status = %s, updated_at = clock_timestamp() WHERE run_id = %s", (status, run_id)
    )


async def finish_run(conn: Conn, run_id: uuid.UUID | str, terminal_type: str, stopped: bool) -> None:
    """Called with the terminal event: a run the /lg surface does not know is not touched. A run the
    user stopped ends with its partial answer, and counts as interrupted."""
    await set_status(conn, run_id, "interrupted" if stopped else STATUS_BY_TERMINAL[terminal_type])


async def take_queued(conn: Conn, thread_id: uuid.UUID | str) -> dict[str, Any] | None:
    """The oldest enqueued run of the thread, locked so that exactly one caller starts it."""
    return await (
        await conn.execute(
            "SELECT * FROM lg_runs WHERE thread_id = %s AND queued_command IS NOT NULL"
            " ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED",
            (thread_id,),
        )
    ).fetchone()


async def mark_started(conn: Conn, run_id: uuid.UUID, thread_id: uuid.UUID | str) -> None:
    """The run holds the thread now; what the thread's checkpoints were is what a rollback returns to."""
    await conn.execute(
        "UPDATE lg_runs SET status = 'running', queued_command = NULL, updated_at = clock_timestamp(),"
        " base_checkpoint_id = " + BASE_CHECKPOINT + ""
        " WHERE run_id = %s",
        (str(thread_id), run_id),
    )


async def unqueue(conn: Conn, run_id: uuid.UUID) -> bool:
    """Take a run out of its thread's queue before it starts; False when it has started already."""
    result = await conn.execute(
        "UPDATE lg_runs SET queued_command = NULL, status = 'interrupted', updated_at = clock_timestamp()"
        " WHERE run_id = %s AND queued_command IS NOT NULL",
        (run_id,),
    )
    return result.rowcount > 0


# Every history message a run can write has an id derived from it (see conversations.add_message callers).
RUN_MESSAGE_KINDS: tuple[str, ...] = get_args(MessageKind)


async def roll_back(conn: Conn, run: dict[str, Any]) -> None:
    """Remove a run that ended: the checkpoints written after it took the thread, its history
    messages and the run itself, so the thread is as if it had never run."""
    thread_id, base = str(run["thread_id"]), run["base_checkpoint_id"]
    for table in ("checkpoint_writes", "checkpoints"):
        await conn.execute(
            f"DELETE FROM {table} WHERE thread_id = %s AND (%s::text IS NULL OR checkpoint_id > %s)",  # noqa: S608
            (thread_id, base, base),
        )
    message_ids = [uuid.uuid5(run["run_id"], kind) for kind in RUN_MESSAGE_KINDS]
    await conn.execute("DELETE FROM messages WHERE thread_id = %s AND id = ANY(%s)", (run["thread_id"], message_ids))
    await conn.execute("DELETE FROM lg_runs WHERE run_id = %s", (run["run_id"],))
