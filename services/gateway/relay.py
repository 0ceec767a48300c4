"""Relaying `pp.evt.*` to Server-Sent Events: id = PP_EVENTS sequence, event = type.

A thread stream attaches to the gateway's `EventHub` (one live subscription per process on
`pp.evt.thread.>`), from now on for a fresh request (attached before the command is published, so
nothing is missed) or right after `Last-Event-ID` for a reconnect (replayed, then handed over to
the live feed). Other subjects (ingest progress, the ticket feed: one stream per document or agent)
read an ordered JetStream consumer of their own. Keep-alives come from the wait itself: `follow`
yields `None` after `keepalive_s` of silence, and the stream sends a comment (services/gateway/sse.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from nats.aio.msg import Msg
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js.api import ConsumerConfig, DeliverPolicy
from pydantic import BaseModel, ValidationError

from services.gateway.event_hub import EventHub
from services.gateway.metrics import SSE_OPEN
from shared.bus.connection import Bus
from shared.config import Settings
from shared.contracts import TERMINAL_EVENT_TYPES
from shared.contracts.events import parse_thread_event

log = logging.getLogger(__name__)

# How a subject's messages are read: the contract that validates them (shared/contracts).
EventContract = Callable[[bytes], BaseModel]

SSE_RESPONSES: dict = {200: {"content": {"text/event-stream": {}}, "description": "Server-Sent Events"}}
# Seconds of silence after which a replay asks whether anything is still running on the thread; while
# something is, the next check waits IDLE_CHECK_GROWTH times as long, up to IDLE_CHECK_MAX_S. A
# running turn ends with its terminal event, so later checks only catch a run that died without one;
# 10,000 open streams checking every second would ask Postgres 10,000 times a second (checks are
# batched, but at 1 → 2 → 4 … s they were still most of the gateway's CPU with 10,000 streams open).
IDLE_CHECK_S = 1.0
IDLE_CHECK_GROWTH = 4
IDLE_CHECK_MAX_S = 60.0
TIMEOUT_MESSAGE = "no answer within the time limit; the run may still finish — reconnect to its thread events"


def sse_item(seq: int | None, event_type: str, data: dict) -> dict[str, str]:
    item = {"event": event_type, "data": json.dumps(data, default=str)}
    if seq is not None:
        item["id"] = str(seq)
    return item


def read_event(raw: bytes, contract: EventContract) -> dict[str, Any] | None:
    """A bus event checked against its contract, as the dict the stream sends (the fields the
    publisher wrote, nothing added); None, logged, for one that does not match: it is a worker's
    defect, and a client is never sent what no contract describes."""
    try:
        event = contract(raw)
    except ValidationError as exc:
        log.warning("event that matches no contract dropped from the stream: %s", exc)
        return None
    return event.model_dump(mode="json", exclude_unset=True)


class Feed(Protocol):
    """What `subscribe` returns and `follow` reads: a hub's `ThreadFeed`, or a nats-py ordered
    JetStream subscription for the subjects the hub does not carry."""

    async def next_msg(self, timeout: float) -> Msg: ...

    async def unsubscribe(self) -> None: ...


async def next_message(sub: Feed, timeout: float) -> Msg:
    """`sub.next_msg(timeout)`, raising a cancellation that landed as the message arrived.

    nats-py waits with `asyncio.wait_for`, which on Python 3.11 hands back a message that arrived as
    its task was cancelled and drops the cancellation: the reader read on, so a WebSocket's pump
    outlived the subscription that replaced it and a stream whose client had gone kept reading."""
    msg = await sub.next_msg(timeout=timeout)
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
    return msg


@dataclass
class Relay:
    """The gateway process's reader of `pp.evt.*` (on `GatewayState`): the hub for thread subjects,
    an ordered consumer of its own for the others."""

    bus: Bus
    hub: EventHub

    @classmethod
    async def start(cls, bus: Bus) -> Relay:
        """Start the process's live subscription on every thread's events."""
        hub = EventHub(bus)
        await hub.start()
        return cls(bus=bus, hub=hub)

    async def stop(self) -> None:
        await self.hub.stop()

    async def subscribe(self, subject: str, after_seq: int | None = None, *, from_start: bool = False) -> Feed:
        """A reader of `subject`: after `after_seq`, from the start, or from now on."""
        if self.hub.handles(subject):
            return await self.hub.attach(subject, 0 if from_start else after_seq)
        if after_seq is not None:
            config = ConsumerConfig(deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=after_seq + 1)
        elif from_start:
            config = ConsumerConfig(deliver_policy=DeliverPolicy.ALL)
        else:
            config = ConsumerConfig(deliver_policy=DeliverPolicy.NEW)
        bus = self.bus
        return await bus.js.subscribe(subject, stream=bus.subjects.events_stream, ordered_consumer=True, config=config)


async def relay(events: AsyncIterator[tuple[int | None, dict] | None]) -> AsyncGenerator[dict[str, str] | None, None]:
    """`follow`'s events as SSE items, with ids from their sequence; its keep-alive `None`s pass through."""
    async for item in events:
        if item is None:
            yield None
            continue
        seq, event = item
        event_type = event.pop("type", "message")
        yield sse_item(seq, event_type, event)


class _Clock:
    """When `follow` next owes a keep-alive and an idle check, and how long it may wait for a message."""

    def __init__(self, timeout_s: float, keepalive_s: float | None, checks: bool) -> None:
        now = time.monotonic()
        self.deadline = now + timeout_s
        self.keepalive_s = keepalive_s
        self.checks = checks
        self.check_every = IDLE_CHECK_S
        # The first check and keep-alive are spread too: streams opened in the same second (after a
        # deploy) would otherwise all be due in the same few milliseconds, every time, and the
        # events relayed then would wait behind thousands of them (policypal bench fanout).
        self.next_check = now + IDLE_CHECK_S * random.uniform(0.5, 1.5)
        self.next_keepalive = now + keepalive_s * random.uniform(0.5, 1.0) if keepalive_s else float("inf")

    def wait_s(self) -> float:
        """Seconds to wait for the next message; <= 0 once the deadline has passed."""
        now = time.monotonic()
        remaining = self.deadline - now
        if remaining <= 0:
            return remaining
        soonest = min(remaining, self.next_keepalive - now, self.next_check - now if self.checks else 5.0)
        return max(soonest, 0.001)

    def sent(self) -> None:
        """A message went out: the idle check starts over, and so does the keep-alive."""
        now = time.monotonic()
        self.check_every = IDLE_CHECK_S
        self.next_check = now + IDLE_CHECK_S
        if self.keepalive_s:
            self.next_keepalive = now + self.keepalive_s

    def check_due(self) -> bool:
        return self.checks and time.monotonic() >= self.next_check

    def checked(self) -> None:
        # jittered, so streams opened together do not all ask at the same instant
        self.check_every = min(self.check_every * IDLE_CHECK_GROWTH, IDLE_CHECK_MAX_S) * random.uniform(0.8, 1.2)
        self.next_check = time.monotonic() + self.check_every

    def keepalive_due(self) -> bool:
        if self.keepalive_s is None or time.monotonic() < self.next_keepalive:
            return False
        self.next_keepalive = time.monotonic() + self.keepalive_s
        return True


async def follow(
    sub: Feed,
    *,
    contract: EventContract = parse_thread_event,
    timeout_s: float,
    is_terminal: Callable[[dict], bool],
    run_id: uuid.UUID | None = None,
    thread_id: uuid.UUID | None = None,
    still_active: Callable[[], Awaitable[bool]] | None = None,
    keepalive_s: float | None = None,
) -> AsyncIterator[tuple[int | None, dict] | None]:
    """Yield `(PP_EVENTS sequence, event)` until a terminal event, or the timeout as an `error` event
    without a sequence; only the events of `run_id` when given; `None` after every `keepalive_s`
    without an event, when given.

    With `still_active`, a replay that has caught up ends as soon as nothing is left to wait for
    (no run in progress), instead of holding the connection until the timeout.
    """
    clock = _Clock(timeout_s, keepalive_s, still_active is not None)
    SSE_OPEN.inc()
    try:
        while (wait_s := clock.wait_s()) > 0:
            try:
                msg = await next_message(sub, wait_s)
            except (TimeoutError, NatsTimeoutError):
                if still_active is not None and clock.check_due():
                    if not await still_active():
                        return
                    clock.checked()
                if clock.keepalive_due():
                    yield None
                continue
            data = read_event(msg.data, contract)
            if data is None:
                continue
            if run_id is not None and data.get("run_id") not in (None, str(run_id)):
                continue
            terminal = is_terminal(data)  # before the consumer sees (and may change) the event
            clock.sent()
            yield msg.metadata.sequence.stream, data
            if terminal:
                return
        yield (
            None,
            {
                "type": "error",
                "thread_id": str(thread_id) if thread_id else None,
                "run_id": str(run_id) if run_id else None,
                "code": "timeout",
                "message": TIMEOUT_MESSAGE,
            },
        )
    finally:
        SSE_OPEN.dec()
        await sub.unsubscribe()


def thread_terminal(event: dict) -> bool:
    return event.get("type") in TERMINAL_EVENT_TYPES


def follow_thread(
    settings: Settings,
    sub: Feed,
    thread_id: uuid.UUID,
    *,
    run_id: uuid.UUID | None = None,
    still_active: Callable[[], Awaitable[bool]] | None = None,
) -> AsyncIterator[tuple[int | None, dict] | None]:
    """`follow` a thread to its next terminal event under the turn timeout, with keep-alives: one run's
    events (`run_id`), or a replay that ends once nothing runs on the thread (`still_active`)."""
    return follow(
        sub,
        timeout_s=settings.turn_timeout_s,
        is_terminal=thread_terminal,
        run_id=run_id,
        thread_id=thread_id,
        still_active=still_active,
        keepalive_s=settings.sse_keepalive_s,
    )


def ingest_terminal(event: dict[str, Any]) -> bool:
    return event.get("status") in ("ready", "failed", "duplicate")


def indexing_terminal(event: dict[str, Any]) -> bool:
    """The end of a ready document's second phase (its vectors all stored), or a failure."""
    return event.get("status") == "failed" or (event.get("status") == "ready" and event.get("stage") == "done")
