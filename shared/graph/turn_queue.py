"""Enqueued turns (the LangGraph `enqueue` multitask strategy) start when their thread is free.

The thread claim in `conversations` serialises runs; an enqueued run waits in `lg_runs` with its
chat command. Whoever frees the thread starts the oldest one: the worker that publishes a run's
terminal event, or the gateway right after enqueuing (the thread may have been freed meanwhile).
The claim is an atomic conditional update, so two callers never start the same run or two runs.
"""

from __future__ import annotations

import logging
import uuid

from shared.bus.connection import Bus
from shared.bus.publish import publish
from shared.contracts import ChatCommand
from shared.db import conversations, runs
from shared.db.pool import Database, tenant_tx

log = logging.getLogger(__name__)


async def start_next(
    bus: Bus, db: Database, tenant_id: uuid.UUID | str, user_id: str, thread_id: uuid.UUID, stale_after_s: float
) -> uuid.UUID | None:
    """Start the thread's oldest enqueued run if the thread is free; returns its run id."""
    async with tenant_tx(db, tenant_id, user_id) as conn:
        row = await runs.take_queued(conn, thread_id)
        if row is None:
            return None
        cmd = ChatCommand.model_validate(row["queued_command"])
        started = await conversations.start_turn(
            conn,
            thread_id=thread_id,
            tenant_id=cmd.tenant_id,
            user_id=cmd.user_id,
            run_id=cmd.run_id,
            message=cmd.message,
            stale_after_s=stale_after_s,
            metadata={"tiptap_json": cmd.tiptap_json, "tagged_doc_ids": [str(d) for d in cmd.tagged_doc_ids]},
        )
        if not started:
            return None
        await runs.mark_started(conn, cmd.run_id, thread_id)
    try:
        await publish(bus, bus.subjects.cmd_chat, cmd, msg_id=str(cmd.run_id))
    except Exception:
        log.exception("enqueued run %s could not be published; it fails", cmd.run_id)
        async with tenant_tx(db, tenant_id, user_id) as conn:
            await conversations.release_thread(conn, thread_id, cmd.run_id)
            await runs.set_status(conn, cmd.run_id, "error")
        return None
    return cmd.run_id
