"""A durable JetStream work-queue consumer that turns messages into typed handler calls.

Why not FastStream here: the SPEC's delivery rules need explicit control that is simplest with
nats-py directly — ack only after the handler's writes, `in_progress` heartbeats for long
stages, `term` + dead-letter on invalid payloads or exhausted deliveries, and a drain that
finishes in-flight work on SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from nats.aio.msg import Msg
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from pydantic import BaseModel, ValidationError

from shared.bus.connection import Bus
from shared.runtime.caller import Caller, current_caller
from shared.telemetry.logging import current_run_id
from shared.telemetry.trace import TRACEPARENT, child_of, current_traceparent

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)


@dataclass
class Delivery:
    """What a handler knows about the message besides its payload."""

    attempt: int
    max_deliver: int

    @property
    def is_last_attempt(self) -> bool:
        return self.attempt >= self.max_deliver


DeadLetterHook = Callable[[bytes, str], Awaitable[None]]


@dataclass
class Consumer(Generic[M]):
    """One durable consumer on the commands stream, shared by all replicas of a worker kind."""

    bus: Bus
    durable: str
    subject: str
    model: type[M]
    handler: Callable[[M, Delivery], Awaitable[None]]
    kind: str
    max_deliver: int = 5
    ack_wait_s: float = 120.0
    concurrency: int = 2
    on_dead_letter: DeadLetterHook | None = None

    async def run(self, stop: asyncio.Event) -> None:
        config = ConsumerConfig(
            durable_name=self.durable,
            filter_subject=self.subject,
            ack_policy=AckPolicy.EXPLICIT,
            deliver_policy=DeliverPolicy.ALL,
            ack_wait=self.ack_wait_s,
            max_deliver=self.max_deliver,
            max_ack_pending=1000,
        )
        sub = await self.bus.js.pull_subscribe(
            self.subject,
            durable=self.durable,
            stream=self.bus.subjects.commands_stream,
            config=config,
        )
        loops = [asyncio.create_task(self._loop(sub, stop)) for _ in range(self.concurrency)]
        try:
            await asyncio.gather(*loops)
        finally:
            # Leave no pending pull request behind, or the connection's drain waits for it.
            await sub.unsubscribe()

    async def _loop(self, sub, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                msgs = await sub.fetch(1, timeout=1.0)
            except (TimeoutError, NatsTimeoutError):
                continue
            except Exception:
                if stop.is_set():
                    return
                log.exception("fetch failed on %s; retrying", self.subject)
                await asyncio.sleep(1.0)
                continue
            for msg in msgs:
                await self._handle(msg)

    async def _handle(self, msg: Msg) -> None:
        meta = msg.metadata
        delivery = Delivery(attempt=meta.num_delivered, max_deliver=self.max_deliver)
        current_traceparent.set(child_of((msg.headers or {}).get(TRACEPARENT)))
        try:
            payload = self.model.model_validate_json(msg.data)
        except ValidationError as exc:
            reason = f"invalid {self.model.__name__}: {exc.errors(include_url=False)}"
            log.warning("rejecting message on %s: %s", msg.subject, reason)
            await self._dead_letter(msg, reason)
            return
        current_run_id.set(str(getattr(payload, "run_id", "")) or None)
        tenant_id, user_id = getattr(payload, "tenant_id", None), getattr(payload, "user_id", None)
        current_caller.set(Caller(tenant_id, user_id) if tenant_id and user_id else None)
        heartbeat = asyncio.create_task(self._keep_alive(msg))
        try:
            await self.handler(payload, delivery)
        except Exception as exc:
            log.exception("handler failed on %s (attempt %d)", msg.subject, delivery.attempt)
            if delivery.is_last_attempt:
                await self._dead_letter(msg, f"{type(exc).__name__}: {exc}")
            else:
                await msg.nak(delay=min(2.0**delivery.attempt, 30.0))
            return
        finally:
            heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await heartbeat
        await msg.ack()

    async def _keep_alive(self, msg: Msg) -> None:
        while True:
            await asyncio.sleep(self.ack_wait_s / 3)
            await msg.in_progress()

    async def _dead_letter(self, msg: Msg, reason: str) -> None:
        """Move the message to `pp.dlq.<kind>` and let the hook tell the client."""
        headers = dict(msg.headers or {})
        headers["Pp-Dlq-Reason"] = reason[:1000]
        headers["Pp-Dlq-Subject"] = msg.subject
        await self.bus.js.publish(self.bus.subjects.dlq(self.kind), msg.data, headers=headers)
        if self.on_dead_letter is not None:
            try:
                await self.on_dead_letter(msg.data, reason)
            except Exception:
                log.exception("dead-letter hook failed")
        await msg.term()
