"""A fast path for `GET /v1/threads/{thread_id}/events`, ahead of FastAPI's routing and middleware.

Opening a thread stream is what thousands of clients do at the same moment after a deploy or a
network blip. Past the batched database check, most of the CPU of opening one went to FastAPI's
per-request machinery (dependency solving, exit stacks, matching through the included routers) and
the middleware layers, whose frames then stayed alive for the life of the stream
(docs/architecture.md §10, `policypal bench fanout`). This path does only what a stream needs: the
token, `Last-Event-ID`/`after`, the batched account and thread check, the feed, the response.

It serves a request only when that request is ordinary and succeeds. Anything else — no or a bad
token, a malformed id, a cross-origin request (CORS headers), a thread that is not the caller's,
Postgres or NATS unavailable — goes down the ordinary route in `routes/chat.py`, which validates
and answers errors exactly as every other endpoint does. Both paths build the stream with the same
`replay_stream`.
"""

from __future__ import annotations

import re
import time
import uuid
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Receive, Scope, Send

from services.gateway.deps import GatewayState, gateway_of
from services.gateway.metrics import record_request
from services.gateway.replay import replay_stream
from services.gateway.sse import EventStream
from shared.auth.tokens import InvalidToken, Principal, verify_token

ROUTE = "/v1/threads/{thread_id}/events"
PATH = re.compile(r"/v1/threads/([0-9a-fA-F-]{36})/events")


class ThreadStreams:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        opened = await self._open(scope) if scope["type"] == "http" and scope["method"] == "GET" else None
        if opened is None:
            await self.app(scope, receive, send)
            return
        record_request("GET", ROUTE, 200, started)
        await opened(scope, receive, send)

    async def _open(self, scope: Scope) -> EventStream | None:
        match = PATH.fullmatch(scope["path"])
        if match is None:
            return None
        headers = dict(scope["headers"])
        query = parse_qs(scope["query_string"].decode("latin-1"))
        gw = gateway_of(scope["app"])
        p = _principal(gw, headers, query)
        start = _start(headers, query)
        if b"origin" in headers or p is None or start is None:
            return None
        try:
            thread_id = uuid.UUID(match.group(1))
            p = await gw.streams.open_thread(p, thread_id)
            sub = await gw.relay.subscribe(gw.bus.subjects.evt_thread(thread_id), after_seq=start)
        except Exception:  # refused, or Postgres or NATS unavailable: the ordinary route answers it
            return None
        return replay_stream(gw, p, sub, thread_id)


def _principal(gw: GatewayState, headers: dict[bytes, bytes], query: dict[str, list[str]]) -> Principal | None:
    authorization = headers.get(b"authorization", b"").decode("latin-1")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer":
        token = query.get("token", [""])[0]
    try:
        return verify_token(gw.settings.jwt_secret(), token) if token else None
    except InvalidToken:
        return None


def _start(headers: dict[bytes, bytes], query: dict[str, list[str]]) -> int | None:
    """The sequence to replay after (0: from the thread's first event); None when malformed."""
    header = headers.get(b"last-event-id")
    raw = header.decode("latin-1") if header is not None else query.get("after", ["0"])[0]
    return int(raw) if raw.isascii() and raw.isdigit() else None
