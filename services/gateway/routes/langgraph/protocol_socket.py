"""LangGraph's v3 thread protocol over a WebSocket: `ws(s)://…/lg/threads/{id}/stream/events`, the
SDKs' `transport="websocket"`.

The caller is signed in as on `/lg` (`Authorization: Bearer`, `X-Api-Key`, or `?token=` for a
browser's WebSocket, which sends no headers). Each frame from the client is a command
`{id, method, params}`, answered on the socket with the same envelope as `POST …/commands`
(protocol.py `carry_out`). `subscription.subscribe` (`{channels, namespaces?, depth?, since?}`, the
body of the SSE stream) → `{subscription_id}`: the socket then carries the thread's events on those
channels, from after `since` or from the start of the run going now, each event once however many
subscriptions match it; `subscription.unsubscribe` (`{subscription_id}`) ends one. A refusal of the
connection itself (no caller, not the caller's thread) closes it with 4000 + the HTTP status, as the
SDKs read it; a frame that is no command is answered with the error envelope and `id: null`.
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
from shared.contracts.lg_protocol import EventStreamRequest, ProtocolCommand

router = APIRouter()
SEEN_KEPT = 10_000  # event seqs remembered per socket, to send each event once across subscriptions


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


@dataclass
class Session:
    """One socket's subscriptions and the tasks that carry their events."""

    gw: GatewayState
    p: Principal
    thread_id: uuid.UUID
    ws: WebSocket
    pumps: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    seen: dict[int, None] = field(default_factory=dict)
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    sending: asyncio.Lock = field(default_factory=asyncio.Lock)

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
            for pump in self.pumps.values():
                pump.cancel()

    async def answer(self, text: str) -> None:
        try:
            body = ProtocolCommand.model_validate(json.loads(text))
        except (ValueError, ValidationError) as exc:
            refused = CommandRefused(400, "invalid_argument", f"not a command {{id, method, params}}: {exc}")
            await self.send(error_envelope(None, refused)[1])
            return
        if body.method == "subscription.subscribe":
            frame = await self.subscribe(body)
        elif body.method == "subscription.unsubscribe":
            frame = self.unsubscribe(body)
        else:
            try:
                charge(self.gw.limits, self.p)
            except ApiError as exc:  # the rate limits of `POST …/commands`, answered on the socket
                await self.send(error_envelope(body.id, refusal(exc))[1])
                return
            frame = (await carry_out(self.gw, self.p, self.thread_id, body))[1]
        await self.send(frame)

    async def subscribe(self, body: ProtocolCommand) -> dict[str, Any]:
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
        wires = await protocol_events(self.gw, self.p, self.thread_id, wanted)
        self.pumps[subscription_id] = asyncio.create_task(self.pump(wires))
        return {"type": "success", "id": body.id, "result": {"subscription_id": subscription_id}}

    def unsubscribe(self, body: ProtocolCommand) -> dict[str, Any]:
        subscription_id = str(body.params.get("subscription_id", ""))
        pump = self.pumps.pop(subscription_id, None)
        if pump is None:
            refused = CommandRefused(404, "no_such_subscription", f"no subscription {subscription_id!r} on this socket")
            return error_envelope(body.id, refused)[1]
        pump.cancel()
        return {"type": "success", "id": body.id, "result": {}}

    async def pump(self, wires: Any) -> None:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            async for wire in wires:
                if wire["seq"] in self.seen:
                    continue
                self.seen[wire["seq"]] = None
                if len(self.seen) > SEEN_KEPT:
                    del self.seen[next(iter(self.seen))]
                await self.send(wire)


@router.websocket("/threads/{thread_id}/stream/events")
async def thread_socket(ws: WebSocket, thread_id: uuid.UUID) -> None:
    """The v3 thread protocol on one socket: commands answered, subscribed events carried."""
    gw = gateway_of(ws.app)
    await ws.accept()
    try:
        p = await caller(gw, ws)
        await thread_row(gw, p, thread_id)
    except ApiError as exc:
        await ws.close(code=4000 + exc.status, reason=exc.message[:120])
        return
    await Session(gw, p, thread_id, ws).serve()
