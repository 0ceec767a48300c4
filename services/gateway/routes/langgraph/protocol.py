"""LangGraph's v3 thread protocol under `/lg`: what `threads.stream()` of the current SDKs speaks.

`POST /threads/{id}/commands` takes one command `{id, method, params}` and answers
`{type: "success", id, result, meta?}` or, with a 4xx, `{type: "error", id, error, message}`; the
commands are carried out in protocol_commands.py.

`POST /threads/{id}/stream/events` streams the thread's events as protocol events (protocol_events.py)
on the same bus as every other stream, run after run, until the client goes away; a WebSocket on the
same path carries both commands and events (protocol_socket.py). Cancel is the
classic `POST /threads/{id}/runs/{run_id}/cancel` (the SDKs have no protocol command for it).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse
from nats.errors import TimeoutError as NatsTimeoutError
from sse_starlette.event import ServerSentEvent
from sse_starlette.sse import EventSourceResponse

from services.gateway.deps import Gateway, GatewayState, bus_up
from services.gateway.errors import ApiError
from services.gateway.relay import SSE_RESPONSES, Feed, next_message, read_event
from services.gateway.routes.langgraph.bodies import JsonBodyRoute
from services.gateway.routes.langgraph.common import (
    check_assistant,
    interrupts_of,
    snapshot,
    thread_row,
)
from services.gateway.routes.langgraph.deps import LgUser, lg_rate_limited
from services.gateway.routes.langgraph.following import ThreadReaders
from services.gateway.routes.langgraph.protocol_commands import HANDLERS, NOT_SUPPORTED, CommandRefused, refusal
from services.gateway.routes.langgraph.protocol_events import ThreadProtocol, bus_seq
from services.gateway.routes.langgraph.stream import HEARTBEAT_S
from services.gateway.routes.langgraph.values import ai_message_id
from services.gateway.sse import SSE_HEADERS
from shared.auth.tokens import Principal
from shared.contracts.api import ErrorBody
from shared.contracts.events import parse_thread_event
from shared.contracts.lg_protocol import CommandError, EventStreamRequest, ProtocolCommand
from shared.db import runs
from shared.db.pool import tenant_tx

router = APIRouter(route_class=JsonBodyRoute)


# A command refused by its handler is answered in the protocol's envelope; the router's own refusals
# (authentication, rate limit, the bus down, an unparseable body) keep PolicyPal's error body.
COMMAND_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody | CommandError, "description": "Refused: the protocol's error envelope"}
    for status in (400, 403, 404, 409, 422)
}


@router.post(
    "/threads/{thread_id}/commands",
    dependencies=[Depends(bus_up), Depends(lg_rate_limited)],
    responses=COMMAND_ERRORS,
)
async def command(thread_id: uuid.UUID, body: ProtocolCommand, p: LgUser, gw: Gateway) -> JSONResponse:
    """One command of the v3 thread protocol; the answer is the protocol's envelope (an error with a 4xx)."""
    status, envelope = await carry_out(gw, p, thread_id, body)
    return JSONResponse(envelope, status_code=status)


async def carry_out(
    gw: GatewayState, p: Principal, thread_id: uuid.UUID, body: ProtocolCommand
) -> tuple[int, dict[str, Any]]:
    """A command's answer, `{type: "success", id, result, meta?}`, or a refusal's envelope with its
    status (protocol_commands.py); over HTTP and over the WebSocket alike (protocol_socket.py)."""
    handler = HANDLERS.get(body.method)
    try:
        if handler is None:
            supported = body.method in NOT_SUPPORTED
            error, why = ("not_supported", "is not offered") if supported else ("unknown_command", "is not a command")
            raise CommandRefused(400, error, f"{body.method} {why}; commands: {', '.join(HANDLERS)}")
        if "assistant_id" in body.params:
            check_assistant(str(body.params["assistant_id"]))
        answer = await handler(gw, p, thread_id, body.params)
    except ApiError as exc:
        return error_envelope(body.id, refusal(exc))
    except CommandRefused as refused:
        return error_envelope(body.id, refused)
    return 200, {"type": "success", "id": body.id, **answer}


def error_envelope(command_id: int | None, refused: CommandRefused) -> tuple[int, dict[str, Any]]:
    envelope = {"type": "error", "id": command_id, "error": refused.error, "message": refused.message}
    return refused.status, {**envelope, **({"code": refused.code} if refused.code else {})}


async def _first_seq(gw: GatewayState, p: Principal, thread_id: uuid.UUID, since: int | None) -> int | None:
    """Where the bus is read from: the start of the run that `since` falls in (the translation needs
    the whole run), else the start of the oldest run still going, else that of the run whose interrupt
    the thread waits on; None: from now on.

    The SDKs subscribe without `since` after `run.start` has been answered over HTTP: a run that
    reached its interrupt before the subscription came is the thread's present, and a stream that
    started after it would never see the interrupt (`thread.interrupted` waited forever)."""
    if since is not None:
        return await replay_start(gw, p, thread_id, bus_seq(since))
    active = await active_start(gw, p, thread_id)
    return active if active is not None else await waiting_start(gw, p, thread_id)


async def replay_start(gw: GatewayState, p: Principal, thread_id: uuid.UUID, at: int) -> int:
    """Where to read the bus from to resume at bus event `at`: the start of its run, since what a
    stream makes of an event depends on the run's earlier events (the caller drops what came before)."""
    run_id = await _run_at(gw, thread_id, at)
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        row = await runs.get_run(conn, thread_id, run_id, p.user_id) if run_id else None
    return min(row["start_seq"], at - 1) if row else max(at - 1, 0)


async def active_start(gw: GatewayState, p: Principal, thread_id: uuid.UUID) -> int | None:
    """The bus position before the oldest run of the thread still going (queued ones included);
    None when nothing runs: a thread's stream then starts from now on."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        active = [
            row
            for status in ("running", "pending")
            for row in await runs.list_runs(conn, thread_id, p.user_id, 100, 0, status)
        ]
    return min((row["start_seq"] for row in active), default=None)


async def waiting_start(gw: GatewayState, p: Principal, thread_id: uuid.UUID) -> int | None:
    """When the thread waits on an interrupt and nothing runs, its last event asked it: the bus
    position before that event's run. None when it waits on nothing."""
    if not interrupts_of(await snapshot(gw, thread_id)):
        return None
    last = await gw.relay.hub.last_stored(gw.bus.subjects.evt_thread(thread_id))
    return await replay_start(gw, p, thread_id, last) if last else None


async def _run_at(gw: GatewayState, thread_id: uuid.UUID, seq: int) -> uuid.UUID | None:
    """The run of the thread's bus event `seq` (None when it is gone or not the thread's)."""
    if seq <= 0:
        return None
    try:
        msg = await gw.bus.js.get_msg(gw.bus.subjects.events_stream, seq)
    except Exception:  # nats-py raises NotFoundError and others for a sequence that is not there
        return None
    if msg.subject != gw.bus.subjects.evt_thread(thread_id) or msg.data is None:
        return None
    event = read_event(msg.data, parse_thread_event)
    return uuid.UUID(str(event["run_id"])) if event else None


@router.post(
    "/threads/{thread_id}/stream/events",
    response_class=EventSourceResponse,
    responses=SSE_RESPONSES,
    dependencies=[Depends(bus_up)],
)
async def thread_events(thread_id: uuid.UUID, body: EventStreamRequest, p: LgUser, gw: Gateway) -> Any:
    """The thread's events as v3 protocol events on the channels asked for, from after `since` (or from
    the start of the run going now, or of the one whose interrupt the thread waits on), run after run,
    until the client closes the stream."""
    if unknown := body.unknown_channels():
        raise ApiError(422, "validation_error", f"channels: unknown channel {unknown[0]!r}", {"field": "channels"})
    await thread_row(gw, p, thread_id)
    wires = await protocol_events(gw, p, thread_id, body)

    async def events() -> AsyncIterator[dict[str, str]]:
        async for wire in wires:
            yield {"id": str(wire["seq"]), "event": wire["method"], "data": json.dumps(wire, default=str)}

    return EventSourceResponse(
        events(),
        ping=HEARTBEAT_S,
        ping_message_factory=lambda: ServerSentEvent(comment="heartbeat"),
        headers=SSE_HEADERS,
    )


async def protocol_events(
    gw: GatewayState, p: Principal, thread_id: uuid.UUID, body: EventStreamRequest
) -> AsyncIterator[dict[str, Any]]:
    """The thread's protocol events (wire form) on `body`'s channels, from after `body.since` (or from
    the start of the run going now or waiting on its interrupt), run after run, for as long as they are
    read. The bus is subscribed to before this returns, so nothing published after the call is missed."""
    first = await _first_seq(gw, p, thread_id, body.since)
    sub = await gw.relay.subscribe(gw.bus.subjects.evt_thread(thread_id), after_seq=first)
    cache: dict[uuid.UUID, str] = {}

    async def answer_id(run_id: uuid.UUID) -> str:
        if run_id not in cache:
            async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
                row = await runs.get_run(conn, thread_id, run_id, p.user_id)
            cache[run_id] = ai_message_id((row["kwargs"].get("turn_run_id") if row else None) or run_id)
        return cache[run_id]

    read = ThreadReaders(gw, p, thread_id, str(thread_id))
    protocol = ThreadProtocol(thread_id, read.values, read.interrupt_id, answer_id)
    after = body.since if body.since is not None else -1

    async def events() -> AsyncIterator[dict[str, Any]]:
        async for seq, event in bus_events(sub):
            for out in await protocol.translate(seq, event):
                name = out.data.get("name") if out.method == "custom" else None
                if out.seq > after and body.wants(out.channel, name):
                    yield out.wire()

    return events()


async def bus_events(sub: Feed) -> AsyncIterator[tuple[int, dict[str, Any]]]:
    """The thread's bus events with their `PP_EVENTS` sequence, until the consumer stops reading."""
    try:
        while True:
            try:
                msg = await next_message(sub, HEARTBEAT_S)
            except (TimeoutError, NatsTimeoutError):
                continue
            event = read_event(msg.data, parse_thread_event)
            if event is not None:
                yield msg.metadata.sequence.stream, event
    finally:
        await sub.unsubscribe()
