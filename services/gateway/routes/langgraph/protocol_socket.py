"""LangGraph's v3 thread protocol over a WebSocket: `ws(s)://…/lg/threads/{id}/stream/events`, the
SDKs' `transport="websocket"`.

The caller is signed in as on `/lg` (`Authorization: Bearer`, `X-Api-Key`, or `?token=` for a
browser's WebSocket, which sends no headers). Each frame from the client is a command
`{id, method, params}`, answered on the socket with the same envelope as `POST …/commands`
(protocol.py `carry_out`). `subscription.subscribe` (`{channels, namespaces?, depth?, since?}`, the
body of the SSE stream) → `{subscription_id}`: the socket then carries the thread's events on those
channels, from after `since` (without it: from before the newest run a command on this socket
started, else from the start of the run going now or waiting on its interrupt), each event once
however many subscriptions match it; `subscription.unsubscribe` (`{subscription_id}`) ends one.
A subscription is answered only once the events the socket had already read are replayed for it:
the JS SDK registers a subscription before it asks for it, starts reading it at the answer and ends
reading at the run's end, so a run that ended before its `values` subscription was answered must have
sent its final `values` by then, or `thread.output` resolves empty. A refusal of the
connection (no caller) closes it with 4000 + the HTTP status, as the SDKs read it. The thread need not
exist when the socket opens (the JS SDK opens it for a new thread's `run.start`, which creates the
thread); a subscription to a thread that is not the caller's is refused and closes the socket (4404).
A frame that is no command is answered with the error envelope and `id: null`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from services.gateway.access import workspace_role
from services.gateway.auth import current_access
from services.gateway.deps import GatewayState, gateway_of
from services.gateway.errors import ApiError
from services.gateway.ratelimit import charge
from services.gateway.routes.langgraph.common import thread_row
from services.gateway.routes.langgraph.protocol import carry_out, error_envelope, protocol_events
from services.gateway.routes.langgraph.protocol_commands import CommandRefused, refusal
from shared.auth.tokens import InvalidToken, Principal, verify_token
from shared.contracts.lg_protocol import CHANNELS, EventStreamRequest, ProtocolCommand

router = APIRouter()
SEEN_KEPT = 10_000  # event seqs remembered per socket, to send each event once
STOP_RETRY_S = 0.05  # how soon a pump that read on after its cancellation is cancelled again
REPLAY_WAIT_S = 5.0  # the longest a subscription's answer waits for its replay (the bus is slow)


def _token(ws: WebSocket) -> str | None:
    auth = ws.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return ws.headers.get("x-api-key") or ws.query_params.get("token")


async def caller(gw: GatewayState, ws: WebSocket) -> Principal:
    """The signed-in workspace user, as `lg_user` finds one for an HTTP request."""
    token = _token(ws)
    if not token:
        raise ApiError(401, "unauthorized", "missing bearer token")
    try:
        principal = verify_token(gw.settings.jwt_secret(), token)
    except InvalidToken as exc:
        raise ApiError(401, "unauthorized", str(exc)) from exc
    return workspace_role(await current_access(gw, principal))


def _wanted_by(filters: dict[str, EventStreamRequest], wire: dict[str, Any]) -> bool:
    method = wire["method"]
    channel = "input" if method == "input.requested" else method
    name = wire["params"]["data"].get("name") if method == "custom" else None
    return any(f.wants(channel, name) for f in filters.values())


async def _stopped(task: asyncio.Task[None]) -> None:
    """Cancel `task` until it has ended. Once was not always enough on Python 3.11: `asyncio.wait_for`
    (in nats-py's `next_msg`, which the pump waits in) drops a cancellation that lands as its message
    arrives, and the pump read on; a subscription waiting for it hung until the socket closed. The
    bus reads now raise such a cancellation (relay.py `next_message`); this stays for any other
    await that drops one."""
    while not task.done():
        task.cancel()
        await asyncio.wait([task], timeout=STOP_RETRY_S)


@dataclass
class Session:
    """One socket: its subscriptions' filters and the one task that carries their events, in order."""

    gw: GatewayState
    p: Principal
    thread_id: uuid.UUID
    ws: WebSocket
    filters: dict[str, EventStreamRequest] = field(default_factory=dict)
    pump: asyncio.Task[None] | None = None
    sent: dict[int, None] = field(default_factory=dict)
    read_to: int | None = None  # the seq of the last event the pump read (sent or not)
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    sending: asyncio.Lock = field(default_factory=asyncio.Lock)
    # The last event before the newest run a command on this socket started (its answer's
    # `meta.applied_through_seq`): a subscription without `since` replays from there, as the SSE
    # transport asks with `since`, so a run that ended before the subscription came is not missed.
    applied: int | None = None

    async def send(self, frame: dict[str, Any]) -> None:
        async with self.sending:
            await self.ws.send_text(json.dumps(frame, default=str))

    async def serve(self) -> None:
        try:
            while (message := await self.ws.receive())["type"] != "websocket.disconnect":
                raw = message.get("bytes")
                await self.answer(message.get("text") or (raw or b"").decode("utf-8", "replace"))
        except WebSocketDisconnect:
            pass
        finally:
            if self.pump is not None:
                await _stopped(self.pump)

    async def answer(self, text: str) -> None:
        try:
            body = ProtocolCommand.model_validate(json.loads(text))
        except (ValueError, ValidationError) as exc:
            refused = CommandRefused(400, "invalid_argument", f"not a command {{id, method, params}}: {exc}")
            await self.send(error_envelope(None, refused)[1])
            return
        if body.method == "subscription.subscribe":
            try:
                frame = await self.subscribe(body)
            except ApiError as exc:
                await self.send(error_envelope(body.id, refusal(exc))[1])
                await self.ws.close(code=4000 + exc.status, reason=exc.message[:120])
                return
        elif body.method == "subscription.unsubscribe":
            frame = self.unsubscribe(body)
        else:
            try:
                charge(self.gw.limits, self.p)
            except ApiError as exc:  # the rate limits of `POST …/commands`, answered on the socket
                await self.send(error_envelope(body.id, refusal(exc))[1])
                return
            frame = (await carry_out(self.gw, self.p, self.thread_id, body))[1]
            applied = frame.get("meta", {}).get("applied_through_seq")
            self.applied = applied if isinstance(applied, int) else self.applied
        await self.send(frame)

    async def subscribe(self, body: ProtocolCommand) -> dict[str, Any]:
        await thread_row(self.gw, self.p, self.thread_id)  # not (or not yet) the caller's: the socket closes
        try:
            wanted = EventStreamRequest.model_validate(body.params)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in ("params", *first["loc"]))
            return error_envelope(body.id, CommandRefused(422, "invalid_argument", f"{where}: {first['msg']}"))[1]
        if unknown := wanted.unknown_channels():
            refused = CommandRefused(422, "invalid_argument", f"params.channels: unknown channel {unknown[0]!r}")
            return error_envelope(body.id, refused)[1]
        subscription_id = f"sub-{next(self.ids)}"
        self.filters[subscription_id] = wanted
        await self.restart(wanted.since if wanted.since is not None else self.applied)
        return {"type": "success", "id": body.id, "result": {"subscription_id": subscription_id}}

    async def restart(self, since: int | None) -> None:
        """(Re)start the socket's one pump from the earlier of `since` and where it had read to: the
        new subscription's replay and every later event go out in order, each once. Returns when the
        pump is back where the old one had read to (or after `REPLAY_WAIT_S`)."""
        if self.pump is not None:
            # The old pump ends before the new one starts, so no event goes out twice or out of order.
            await _stopped(self.pump)
        starts = [s for s in (since, self.read_to) if s is not None]
        start = min(starts) if starts else None
        every = EventStreamRequest(channels=sorted(CHANNELS), since=start)
        # Nothing read yet, or nothing to read again: the answer need not wait.
        replay_to = self.read_to if start is not None and start != self.read_to else None
        replayed = asyncio.Event()
        wires = await protocol_events(self.gw, self.p, self.thread_id, every)
        self.pump = asyncio.create_task(self.carry(wires, replay_to, replayed))
        if replay_to is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(REPLAY_WAIT_S):
                    await replayed.wait()

    def unsubscribe(self, body: ProtocolCommand) -> dict[str, Any]:
        subscription_id = str(body.params.get("subscription_id", ""))
        if self.filters.pop(subscription_id, None) is None:
            refused = CommandRefused(404, "no_such_subscription", f"no subscription {subscription_id!r} on this socket")
            return error_envelope(body.id, refused)[1]
        return {"type": "success", "id": body.id, "result": {}}

    async def carry(self, wires: Any, replay_to: int | None, replayed: asyncio.Event) -> None:
        """Send the wanted events not sent yet; `replayed` is set once the pump is past `replay_to`."""
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            async for wire in wires:
                self.read_to = max(wire["seq"], self.read_to or 0)
                if wire["seq"] not in self.sent and _wanted_by(self.filters, wire):
                    # Counted as sent once it is: a pump cancelled while sending (a new subscription
                    # restarts it) leaves the event to the next pump's replay.
                    await self.send(wire)
                    self.sent[wire["seq"]] = None
                    if len(self.sent) > SEEN_KEPT:
                        del self.sent[next(iter(self.sent))]
                if replay_to is not None and wire["seq"] >= replay_to:
                    replayed.set()


@router.websocket("/threads/{thread_id}/stream/events")
async def thread_socket(ws: WebSocket, thread_id: uuid.UUID) -> None:
    """The v3 thread protocol on one socket: commands answered, subscribed events carried."""
    gw = gateway_of(ws.app)
    await ws.accept()
    try:
        p = await caller(gw, ws)
    except ApiError as exc:
        await ws.close(code=4000 + exc.status, reason=exc.message[:120])
        return
    await Session(gw, p, thread_id, ws).serve()
