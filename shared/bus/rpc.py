"""Core NATS request-reply: a validated request in, a model or an `RpcError` out.

Callers ask through the process's FastStream broker (`request`). Every RPC answers the same way: a
bad request gets `invalid_request` naming the fields, a failure `internal`, and never silence.
Retrieval is a FastStream router (`rpc_router`) whose `RpcErrors` middleware turns exceptions into
that reply; the embedding service answers through `responder`, a nats-py subscription on the
broker's connection, because FastStream's stop drops the requests that arrive while it waits for
the ones in hand, where nats-py's drain answers them (docs/bus-stack.md).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from faststream import BaseMiddleware
from faststream.message import StreamMessage
from faststream.nats import NatsRouter
from nats.aio.msg import Msg
from pydantic import BaseModel, ValidationError

from shared.bus.connection import Bus
from shared.bus.delivery import InvalidPayload
from shared.contracts import RpcError
from shared.telemetry.trace import TRACEPARENT, child_of, current_traceparent, outgoing_traceparent

log = logging.getLogger(__name__)


async def request(bus: Bus, subject: str, body: bytes, timeout: float) -> bytes:
    """Ask once and return the reply's body, continuing the caller's trace. nats-py's own errors
    come through: `NoRespondersError` when nobody listens, its `TimeoutError` when nobody answers."""
    reply = await bus.broker.request(body, subject, headers={TRACEPARENT: outgoing_traceparent()}, timeout=timeout)
    return reply.body


Request = TypeVar("Request", bound=BaseModel)
Handle = Callable[[Msg], Coroutine[Any, Any, None]]


def responder(model: type[Request], serve: Callable[[Request], Awaitable[BaseModel]]) -> Handle:
    async def handle(msg: Msg) -> None:
        current_traceparent.set(child_of((msg.headers or {}).get(TRACEPARENT)))
        try:
            request = model.model_validate_json(msg.data)
            reply: BaseModel = await serve(request)
        except ValidationError as exc:
            reply = RpcError(error="invalid_request", message=str(exc.errors(include_url=False)))
        except Exception as exc:
            log.exception("%s request failed", msg.subject)
            reply = RpcError(error="internal", message=f"{type(exc).__name__}: {exc}")
        await msg.respond(reply.model_dump_json().encode())

    return handle


class Concurrently:
    """A subscription callback (`dispatch`) that handles each message in its own task.

    nats-py awaits a subscription's callback before it delivers the next message, so a handler
    that waits (for a micro-batch to fill, for the database) would serialise every caller.
    """

    def __init__(self, handle: Handle) -> None:
        self._handle = handle
        self._tasks: set[asyncio.Task[None]] = set()

    async def dispatch(self, msg: Msg) -> None:
        task = asyncio.create_task(self._handle(msg))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def finish(self) -> None:
        """Wait for the requests already taken (after the subscription was drained)."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


class RpcErrors(BaseMiddleware):
    """Every failure of a request handler becomes an `RpcError` reply instead of a timeout."""

    async def consume_scope(self, call_next: Callable[[Any], Awaitable[Any]], msg: StreamMessage[Any]) -> Any:
        current_traceparent.set(child_of(msg.headers.get(TRACEPARENT)))
        try:
            return await call_next(msg)
        except InvalidPayload as exc:
            return RpcError(error="invalid_request", message=str(exc))
        except Exception as exc:
            log.exception("%s request failed", msg.raw_message.subject)
            return RpcError(error="internal", message=f"{type(exc).__name__}: {exc}")


def rpc_router() -> NatsRouter:
    return NatsRouter(middlewares=[RpcErrors])
