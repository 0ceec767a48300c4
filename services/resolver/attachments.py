"""A turn whose message came with files waits until they are read into the sender's library
(services/gateway/attachments.py queued them), and says so in PalReasoning: the answer must be
able to cite them. A file that cannot be read ends the turn with its reason (`UserFacingError`,
so no retry); a stop ends the wait at once.

The wait polls the documents' status: it is the one record every ingest path writes (a job that
died and was dead-lettered marks its document `failed`), and a status line goes out while the
wait lasts, so that a client following the run never sees it fall silent.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from shared.bus.events import RunEvents
from shared.contracts import ChatCommand
from shared.db import documents as docs
from shared.db.pool import Database, tenant_tx
from shared.graph.errors import UserFacingError
from shared.graph.runner import RunStopped

NODE = "attachments"
POLL_S = 0.5
REMIND_S = 20.0  # a status line at least this often while the wait lasts
DONE = ("ready", "failed")


def _name(row: dict[str, Any]) -> str:
    return docs.display_name(row)


async def wait_for_attachments(
    db: Database, events: RunEvents, cmd: ChatCommand, stop: asyncio.Event, wait_s: float
) -> None:
    """Return once every attached document is ready."""
    try:
        await _wait(db, events, cmd, stop, wait_s)
    finally:
        await events.flush()


async def _wait(db: Database, events: RunEvents, cmd: ChatCommand, stop: asyncio.Event, wait_s: float) -> None:
    loop = asyncio.get_running_loop()
    deadline, said_at = loop.time() + wait_s, None
    while True:
        async with tenant_tx(db, cmd.tenant_id, cmd.user_id) as conn:
            rows = await docs.documents_by_ids(conn, cmd.attachment_ids)
        if len(rows) < len(set(cmd.attachment_ids)):
            raise UserFacingError("attachment_missing", "an attached file is no longer in your library")
        failed = [r for r in rows if r["status"] == "failed"]
        if failed:
            reason = failed[0]["error"] or "it could not be read"
            raise UserFacingError(
                "attachment_failed", f"The attached file {_name(failed[0])} could not be read: {reason}"
            )
        pending = [r for r in rows if r["status"] not in DONE]
        if not pending:
            if said_at is not None:
                await events.status(NODE, f"Read {', '.join(_name(r) for r in rows)}: answering now")
            return
        if loop.time() > deadline:
            raise UserFacingError(
                "attachment_timeout", f"{_name(pending[0])} is still being read; ask again once it is ready"
            )
        if said_at is None or loop.time() - said_at >= REMIND_S:
            names = ", ".join(_name(r) for r in pending)
            await events.status(NODE, f"Reading the attached {names} into your library before answering")
            said_at = loop.time()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), POLL_S)
        if stop.is_set():
            raise RunStopped("")
