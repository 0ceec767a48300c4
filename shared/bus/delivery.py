"""The delivery rules of a command (docs/architecture.md §4), as one FastStream middleware per service router.

FastStream's default ack policy terminates a message on any exception; ours is different:
- the handler returned → ack (after its writes, which happened inside it);
- the payload does not match its contract → dead-letter at once (a retry cannot fix it);
- the handler raised `BadInput` (the command is well formed but cannot be carried out as given:
  a client's answer that fits no question) → settled at once, no retry and no dead letter; the
  router's `on_bad_input` hook tells the client why, and only if telling fails is it retried;
- the handler raised → `nak(delay)` with exponential backoff, and on the last delivery
  dead-letter instead, so the client gets an `error` event rather than silence;
- while the handler runs, `in_progress` every `ack_wait / 3` keeps a long stage from being
  redelivered to another replica;
- the handler failed because Postgres is down → the command is held, still heartbeating, until
  the database answers again and then handed back (`nak`) for an immediate retry: an outage of
  minutes costs one attempt, not the whole budget. Past `outage_ride_out_s` after the command was
  published it is dead-lettered, and its `error` event goes out without the database.
The middleware settles the raw message itself and swallows the exception, so FastStream's own
acknowledgement (NACK_ON_ERROR on our subscribers, as a safety net) finds it already settled.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from faststream import BaseMiddleware
from faststream.exceptions import HandlerException
from faststream.nats.message import NatsMessage
from nats.aio.msg import Msg
from pydantic import BaseModel, ValidationError

from shared.bus.connection import Bus
from shared.bus.publish import publish_raw
from shared.db.circuit import database_failure
from shared.db.pool import Database
from shared.runtime.caller import Caller, current_caller
from shared.telemetry.logging import current_run_id
from shared.telemetry.trace import TRACEPARENT, child_of, current_traceparent

log = logging.getLogger(__name__)

DeadLetterHook = Callable[[bytes, str], Awaitable[None]]
BadInputHook = Callable[[bytes, "BadInput"], Awaitable[None]]
MAX_BACKOFF_S = 30.0
OUTAGE_POLL_S = 1.0
# Deliveries the server allows beyond the handlers' own budget: each database outage a command
# rides out costs it one.
OUTAGE_REDELIVERIES = 5


@dataclass
class Delivery:
    """What a handler knows about the message besides its payload."""

    attempt: int
    max_deliver: int

    @property
    def is_last_attempt(self) -> bool:
        return self.attempt >= self.max_deliver

    @classmethod
    def of(cls, msg: NatsMessage | Msg, max_deliver: int) -> Delivery:
        raw = msg.raw_message if isinstance(msg, NatsMessage) else msg
        return cls(attempt=raw.metadata.num_delivered, max_deliver=max_deliver)


class InvalidPayload(Exception):
    """The message body does not validate against its subject's contract."""


class BadInput(Exception):
    """A failure of the command's content, not of the system: running it again would fail the same
    way, so it is never retried nor dead-lettered. `code` and `message` are what the client is told;
    they are written for a person (never an exception's text)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def payload_decoder(model: type[BaseModel]) -> Callable[[NatsMessage], Awaitable[BaseModel]]:
    """A FastStream decoder that validates the body against `model` and raises `InvalidPayload`, so a
    malformed command is told apart from a `ValidationError` raised by the handler's own work."""

    async def decode(msg: NatsMessage) -> BaseModel:
        try:
            return model.model_validate_json(msg.body)
        except ValidationError as exc:
            raise InvalidPayload(f"invalid {model.__name__}: {exc.errors(include_url=False)}") from exc

    return decode


def backoff_s(attempt: int) -> float:
    return min(2.0**attempt, MAX_BACKOFF_S)


@dataclass
class DeliveryPolicy:
    """The middleware factory a service's router is built with: FastStream calls it per message."""

    bus: Bus
    kind: str
    max_deliver: int
    ack_wait_s: float
    on_dead_letter: DeadLetterHook | None = None
    on_bad_input: BadInputHook | None = None
    database: Database | None = None
    outage_ride_out_s: float = 600.0

    def __call__(self, msg: Any, /, *, context: Any) -> _Delivering:
        return _Delivering(msg, context=context, policy=self)

    async def dead_letter(self, raw: Msg, reason: str) -> None:
        """Move the message to `pp.dlq.<kind>`, let the hook tell the client, then `term` it."""
        headers = dict(raw.headers or {})
        headers["Pp-Dlq-Reason"] = reason[:1000]
        headers["Pp-Dlq-Subject"] = raw.subject
        await publish_raw(self.bus, self.bus.subjects.dlq(self.kind), raw.data, headers)
        if self.on_dead_letter is not None:
            try:
                await self.on_dead_letter(raw.data, reason)
            except Exception:
                log.exception("dead-letter hook failed")
        await raw.term()

    async def refuse(self, raw: Msg, exc: BadInput) -> None:
        """Tell the client why its command cannot be carried out, then settle it for good. The hook's
        own failure propagates: the command goes to the ordinary rules, so the client hears at least once."""
        log.info("refused %s: %s (%s)", raw.subject, exc.code, exc.message)
        if self.on_bad_input is not None:
            await self.on_bad_input(raw.data, exc)
        await raw.ack()


def _adopt_context(raw: Msg) -> None:
    """Run id, caller and trace of the command, for logs and for everything it publishes."""
    current_traceparent.set(child_of((raw.headers or {}).get(TRACEPARENT)))
    try:
        body = json.loads(raw.data)
    except ValueError:
        body = None
    if not isinstance(body, dict):
        return
    current_run_id.set(str(body.get("run_id") or "") or None)
    tenant_id, user_id = body.get("tenant_id"), body.get("user_id")
    current_caller.set(Caller(tenant_id, user_id) if tenant_id and user_id else None)


class _Delivering(BaseMiddleware):
    def __init__(self, msg: Any, /, *, context: Any, policy: DeliveryPolicy) -> None:
        super().__init__(msg, context=context)
        self.policy = policy
        # A timer, not a task per message: most commands finish long before the first beat.
        self.heartbeat: asyncio.TimerHandle | None = None
        self.beats: set[asyncio.Future[None]] = set()

    @property
    def raw(self) -> Msg:
        """The nats-py message FastStream built this middleware for (it does so per received message)."""
        if not isinstance(self.msg, Msg):
            raise TypeError(f"DeliveryPolicy runs on received NATS messages, not {type(self.msg).__name__}")
        return self.msg

    async def on_receive(self) -> None:
        raw = self.raw
        _adopt_context(raw)
        self._arm(raw)

    def _arm(self, raw: Msg) -> None:
        self.heartbeat = asyncio.get_running_loop().call_later(self.policy.ack_wait_s / 3, self._beat, raw)

    def _beat(self, raw: Msg) -> None:
        beat = asyncio.ensure_future(raw.in_progress())
        self.beats.add(beat)
        beat.add_done_callback(self.beats.discard)
        self._arm(raw)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc_val: BaseException | None = None,
        exc_tb: TracebackType | None = None,
    ) -> bool | None:
        try:
            # No error, a cancellation, or FastStream's own Ack/Nack/Reject signals: FastStream settles those.
            if exc_val is None or not isinstance(exc_val, Exception) or isinstance(exc_val, HandlerException):
                return False
            await self._settle_failure(exc_val)
            return True
        finally:
            if self.heartbeat is not None:
                self.heartbeat.cancel()

    async def _settle_failure(self, exc: Exception) -> None:
        raw = self.raw
        if isinstance(exc, InvalidPayload):
            log.warning("rejecting message on %s: %s", raw.subject, exc)
            await self.policy.dead_letter(raw, str(exc))
            return
        if isinstance(exc, BadInput):
            try:
                await self.policy.refuse(raw, exc)
                return
            except Exception as failure:  # telling the client failed: retried like any failure
                exc = failure
        database = self.policy.database
        if database is not None and database_failure(exc) and not await database.reachable():
            await self._ride_out(raw, database)
            return
        delivery = Delivery.of(raw, self.policy.max_deliver)
        log.error("handler failed on %s (attempt %d)", raw.subject, delivery.attempt, exc_info=exc)
        if delivery.is_last_attempt:
            await self.policy.dead_letter(raw, f"{type(exc).__name__}: {exc}")
        else:
            await raw.nak(delay=backoff_s(delivery.attempt))

    async def _ride_out(self, raw: Msg, database: Database) -> None:
        """Hold the command (heartbeats go on) until Postgres answers, then hand it back for an
        immediate retry; dead-letter it once it is `outage_ride_out_s` old."""
        deadline = raw.metadata.timestamp + dt.timedelta(seconds=self.policy.outage_ride_out_s)
        log.warning("%s waits for the database to come back", raw.subject)
        if await database.back_within((deadline - dt.datetime.now(dt.UTC)).total_seconds(), OUTAGE_POLL_S):
            await raw.nak()
        else:
            await self.policy.dead_letter(
                raw, f"the database stayed unavailable for {self.policy.outage_ride_out_s:.0f} s"
            )
