"""`GET /lg/threads/{id}/stream`: the thread's runs one after another, each as its own run stream
(`RunStream`, in the modes it was started with, `metadata` first), open until the client closes it,
as LangGraph's server keeps a thread's stream. `Last-Event-ID` resumes after an event of any of them
(the ids are the run streams' own, a run's `metadata` numbered with its first event, so a resumed stream
replays that run from its start and drops what the client has); without it the stream starts with
the run going on, or from now.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query
from sse_starlette.event import ServerSentEvent
from sse_starlette.sse import EventSourceResponse

from services.gateway.deps import Gateway, GatewayState
from services.gateway.errors import ApiError
from services.gateway.relay import SSE_RESPONSES
from services.gateway.routes.langgraph.common import thread_row
from services.gateway.routes.langgraph.deps import LgUser
from services.gateway.routes.langgraph.following import run_stream
from services.gateway.routes.langgraph.protocol import active_start, bus_events, replay_start
from services.gateway.routes.langgraph.runs import join_modes
from services.gateway.routes.langgraph.stream import HEARTBEAT_S, ResumePoint, RunStream, numbered
from services.gateway.sse import SSE_HEADERS
from shared.auth.tokens import Principal
from shared.db import runs
from shared.db.pool import tenant_tx

router = APIRouter()


@router.get("/threads/{thread_id}/stream", response_class=EventSourceResponse, responses=SSE_RESPONSES)
async def join_thread(
    thread_id: uuid.UUID,
    p: LgUser,
    gw: Gateway,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID", pattern=r"^\d{1,19}(\.\d{1,4})?$")] = None,
    stream_mode: Annotated[list[str] | None, Query()] = None,
) -> Any:
    """Every run of the thread as it streams (`stream_mode` `run_modes`, the default: each in its own
    modes), until the client closes the stream."""
    asked = [m for m in stream_mode or [] if m]
    if any(m != "run_modes" for m in asked):
        raise ApiError(422, "validation_error", "stream_mode: only run_modes is offered", {"field": "stream_mode"})
    await thread_row(gw, p, thread_id)
    resume = ResumePoint.of(last_event_id) if last_event_id else None
    if resume is None:
        first = await active_start(gw, p, thread_id)
    else:  # from the start of the run resumed in: a run's `metadata` goes with its first event
        first = await replay_start(gw, p, thread_id, resume.seq if resume.seq is not None else resume.after)
    sub = await gw.relay.subscribe(gw.bus.subjects.evt_thread(thread_id), after_seq=first)

    async def events() -> AsyncIterator[dict[str, str]]:
        current: RunStream | None = None
        async for seq, event in bus_events(sub):
            run_id = uuid.UUID(str(event["run_id"]))
            opening = current is None or current.run_id != run_id
            if opening:
                current = await _run_translator(gw, p, thread_id, run_id)
            assert current is not None
            # A run's `metadata` goes with its first event, numbered with it: ids stay unique per stream.
            items = numbered([*(current.opening() if opening else []), *await current.translate(seq, event)], seq)
            if resume is not None and seq <= resume.after:
                continue  # the client has it
            if resume is not None and seq == resume.seq:
                items = items[resume.delivered :]
            for out in items:
                yield out

    return EventSourceResponse(
        events(),
        ping=HEARTBEAT_S,
        ping_message_factory=lambda: ServerSentEvent(comment="heartbeat"),
        headers=SSE_HEADERS,
    )


async def _run_translator(gw: GatewayState, p: Principal, thread_id: uuid.UUID, run_id: uuid.UUID) -> RunStream:
    """The run's stream in its own modes; a turn started through `/v1` (no `/lg` run) in `values`."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        row = await runs.get_run(conn, thread_id, run_id, p.user_id)
    row = row or {"thread_id": thread_id, "run_id": run_id, "kwargs": {}}
    return run_stream(gw, p, row, join_modes(None, row))
