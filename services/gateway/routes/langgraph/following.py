"""Following a run: its events as an SSE stream (`RunStream` translates them), or waiting for
its end; both read `PP_EVENTS` from the run's start sequence or a client's `Last-Event-ID`.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from sse_starlette.event import ServerSentEvent
from sse_starlette.sse import EventSourceResponse

from services.gateway.deps import GatewayState
from services.gateway.relay import Feed, follow, follow_thread, thread_terminal
from services.gateway.routes.langgraph.common import interrupts_of, snapshot
from services.gateway.routes.langgraph.multitask import stop_later
from services.gateway.routes.langgraph.stream import HEARTBEAT_S, ResumePoint, RunStream
from services.gateway.routes.langgraph.values import ai_message_id, thread_values
from services.gateway.sse import SSE_HEADERS
from shared.auth.tokens import Principal
from shared.db import runs
from shared.db.pool import tenant_tx

ACTIVE = ("pending", "running")


def run_path(thread_id: uuid.UUID, run_id: uuid.UUID) -> str:
    """Relative to the API root (`/lg`): the SDKs resolve it against the URL they were given."""
    return f"/threads/{thread_id}/runs/{run_id}"


def location_headers(thread_id: uuid.UUID, run_id: uuid.UUID) -> dict[str, str]:
    path = run_path(thread_id, run_id)
    return {"Content-Location": path, "Location": f"{path}/stream"}


@dataclass(frozen=True)
class ThreadReaders:
    """What a stream's translator reads on demand: the thread's values and its pending question's id
    (`fallback` when none waits)."""

    gw: GatewayState
    p: Principal
    thread_id: uuid.UUID
    fallback: str

    async def values(self) -> dict[str, Any]:
        async with tenant_tx(self.gw.db, self.p.tenant_id, self.p.user_id) as conn:
            return await thread_values(conn, self.thread_id)

    async def interrupt_id(self) -> str:
        pending = interrupts_of(await snapshot(self.gw, self.thread_id))
        return pending[0].id if pending else self.fallback


def run_stream(gw: GatewayState, p: Principal, row: dict[str, Any], modes: list[str]) -> RunStream:
    """The translator of the run's events, reading the thread's values and pending question on demand."""
    thread_id, run_id = row["thread_id"], row["run_id"]
    read = ThreadReaders(gw, p, thread_id, str(run_id))
    return RunStream(
        run_id=run_id,
        thread_id=thread_id,
        answer_id=ai_message_id(row["kwargs"].get("turn_run_id") or run_id),
        modes=modes,
        values=read.values,
        interrupt_id=read.interrupt_id,
    )


def stream_response(
    gw: GatewayState,
    p: Principal,
    row: dict[str, Any],
    sub: Feed,
    modes: list[str],
    *,
    opening: bool,
    replay: bool,
    cancel_on_disconnect: bool,
    resume: ResumePoint | None = None,
) -> EventSourceResponse:
    thread_id, run_id = row["thread_id"], row["run_id"]
    run = run_stream(gw, p, row, modes)

    async def still_active() -> bool:
        return await run_active(gw, p, thread_id, run_id)

    async def events() -> AsyncIterator[dict[str, str]]:
        if opening:
            for out in run.opening():
                yield out
            # The thread as the run found it; also for a client starting over after only the metadata.
            if row["status"] == "running":
                for out in await run.initial_values(row["start_seq"]):
                    yield out
        source = follow(
            sub,
            timeout_s=gw.settings.turn_timeout_s,
            is_terminal=thread_terminal,
            run_id=run_id,
            thread_id=thread_id,
            still_active=still_active if replay else None,
        )
        ended = False
        try:
            async for out in run.relay(source, resume):
                yield out
            ended = True
        finally:
            if cancel_on_disconnect and not ended:  # the client went away before the run ended
                stop_later(gw, p, thread_id, run_id)

    return EventSourceResponse(
        events(),
        ping=HEARTBEAT_S,
        ping_message_factory=lambda: ServerSentEvent(comment="heartbeat"),
        headers={**SSE_HEADERS, **location_headers(thread_id, run_id)},
    )


async def run_active(gw: GatewayState, p: Principal, thread_id: uuid.UUID, run_id: uuid.UUID) -> bool:
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        row = await runs.get_run(conn, thread_id, run_id, p.user_id)
    return row is not None and row["status"] in ACTIVE


async def wait_for(gw: GatewayState, p: Principal, row: dict[str, Any], sub: Feed | None = None) -> dict[str, Any]:
    """Block until the run ends (its terminal event, or caught up with nothing running), then the
    thread's values, with `__interrupt__` when the run stopped at a question."""
    thread_id, run_id = row["thread_id"], row["run_id"]
    if sub is None:
        sub = await gw.relay.subscribe(gw.bus.subjects.evt_thread(thread_id), after_seq=row["start_seq"])

    async def still_active() -> bool:
        return await run_active(gw, p, thread_id, run_id)

    async for _ in follow_thread(gw.settings, sub, thread_id, run_id=run_id, still_active=still_active):
        pass  # keep-alives and events alike: only the end matters here
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        return await thread_values(conn, thread_id)
