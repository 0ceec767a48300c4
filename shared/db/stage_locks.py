"""One delivery at a time works on a run's stage, across every replica of its worker.

A command's lease (`PP_ACK_WAIT_S`) lapses when its worker is starved long enough to miss its
heartbeats (a loaded host), and JetStream then delivers it again while the first delivery still
works, to another replica or to the same process's other subscriber. Nothing recorded yet tells the
second delivery that the first lives: during a wait before the graph starts (attachments being
read) the checkpoint does not name the run, and mid-stage it cannot tell a live delivery from a
dead one. Two deliveries running one stage fork the thread's checkpoint history and read each
other's progress as their own outcome.

A session-level advisory lock is tied to the liveness of the delivery that holds it: Postgres
drops it when that delivery's connection goes (its process died), so a later delivery waits only
as long as the first one lives, then finds the stage's recorded outcome, or continues the run from
its checkpoint. The connection comes from the autocommit pool, so holding it opens no transaction.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from shared.db.pool import Database

log = logging.getLogger(__name__)


def stage_lock_key(run_id: uuid.UUID, stage: str) -> int:
    """The advisory lock's 64-bit key of one stage of one run (a signed bigint, as Postgres takes it)."""
    return int.from_bytes(uuid.uuid5(run_id, f"stage:{stage}").bytes[:8], "big", signed=True)


@asynccontextmanager
async def stage_held(db: Database, run_id: uuid.UUID, stage: str) -> AsyncIterator[None]:
    """Hold the run's stage for the duration of the block, waiting while another delivery holds it.
    The wait is the other delivery's lifetime; this delivery's own heartbeats keep its lease."""
    key = stage_lock_key(run_id, stage)
    db.circuit.admit()
    async with db.checkpoint_pool.connection() as conn:
        row = await (await conn.execute("SELECT pg_try_advisory_lock(%s) AS held", (key,))).fetchone()
        if not (row and row["held"]):
            log.warning("run %s: another delivery still works on its %s stage; waiting for it", run_id, stage)
            await conn.execute("SELECT pg_advisory_lock(%s)", (key,))
        try:
            yield
        finally:
            # A connection that broke meanwhile took the lock with it; the pool discards that one.
            if not conn.broken:
                await conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
