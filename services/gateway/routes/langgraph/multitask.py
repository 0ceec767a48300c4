"""Double texting on `/lg`: a new run while one is running interrupts it, rolls it back, or
waits (enqueued; `reject` refuses it in start_run); and stopping a run, at once or from a task.
"""

from __future__ import annotations

import asyncio
import time
import uuid

from services.gateway.deps import GatewayState
from services.gateway.errors import ApiError
from services.gateway.turns import request_stop
from shared.auth.tokens import Principal
from shared.db import conversations, runs
from shared.db.pool import tenant_tx

STOP_POLL_S = 0.1
BACKGROUND: set[asyncio.Task] = set()  # tasks outliving their request, referenced until done


async def displace(gw: GatewayState, p: Principal, thread_id: uuid.UUID, *, rollback: bool) -> None:
    """`interrupt`: stop the thread's running run for a newer one; `rollback`: also erase it. Both wait
    for the stop (the stage stops at its next await), so the newer run starts on a settled checkpoint."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        current = await conversations.running_run(conn, thread_id, p.user_id)
        run = await runs.get_run(conn, thread_id, current, p.user_id) if current else None
    if current is None:
        return
    if rollback and run is None:
        raise ApiError(409, "thread_busy", "the running turn was not started through /lg, so it cannot be rolled back")
    await stop(gw, p, thread_id, current, rollback=rollback)


async def stop(gw: GatewayState, p: Principal, thread_id: uuid.UUID, run_id: uuid.UUID, *, rollback: bool) -> None:
    """Ask the workers to stop the run and wait until it has let go of the thread; with `rollback`, then
    remove its checkpoints, messages and record."""
    await request_stop(gw, p, thread_id, run_id)
    deadline = time.monotonic() + gw.settings.turn_timeout_s
    while True:
        async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
            if await conversations.running_run(conn, thread_id, p.user_id) != run_id:
                break
        if time.monotonic() > deadline:
            raise ApiError(409, "not_stopped", "the run did not stop within the turn timeout")
        await asyncio.sleep(STOP_POLL_S)
    if rollback:
        async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
            run = await runs.get_run(conn, thread_id, run_id, p.user_id)
            if run is not None:
                await runs.roll_back(conn, run)


def stop_later(gw: GatewayState, p: Principal, thread_id: uuid.UUID, run_id: uuid.UUID) -> None:
    """Stop the run if it still runs, from a task: the disconnected stream's own task is being torn down."""

    async def stop_if_running() -> None:
        async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
            running = await conversations.running_run(conn, thread_id, p.user_id) == run_id
        if running:
            await request_stop(gw, p, thread_id, run_id)

    task = asyncio.create_task(stop_if_running())
    BACKGROUND.add(task)
    task.add_done_callback(BACKGROUND.discard)
