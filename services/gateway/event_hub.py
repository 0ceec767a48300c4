"""One live subscription per gateway process on `pp.evt.thread.>`, fanned out in-process.

Opening an SSE stream used to create its own JetStream ordered consumer; with 1,000 clients
connecting at once the server-side consumer creations queued up to seconds. Now the hub holds one
ordered consumer on every thread subject (it carries the stream sequence, which is the SSE id), and
a stream attaches a `ThreadFeed` to it: a dict insert. Only a stream that must catch up (a
`Last-Event-ID`, or a late joiner on a thread with events after the requested point) opens a
consumer of its own, for the replay, and hands over to the live feed without a gap or a duplicate:

1. the feed is attached (buffering live messages) *before* the replay's end is fixed, so every
   message stored after that point reaches the buffer;
2. the replay runs up to the subject's last stored sequence at that point (or until JetStream
   reports nothing pending);
3. the live buffer is then read, skipping every sequence the replay already delivered.

A stream that stops reading has its buffer capped: past `MAX_BUFFERED` it is dropped and the feed
catches up again from its last delivered sequence, through the same hand-over. Each gateway replica
runs its own hub; nothing is shared between them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque

from nats.aio.msg import Msg
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js import JetStreamContext
from nats.js.api import ConsumerConfig, DeliverPolicy
from nats.js.errors import NotFoundError

from shared.bus.connection import Bus

log = logging.getLogger(__name__)

# Live messages held for a stream that is not reading; past this it replays from JetStream instead.
MAX_BUFFERED = 2048


class ThreadFeed:
    """One SSE stream's view of one thread subject, with the `next_msg`/`unsubscribe` surface of a
    nats-py subscription (what `relay.follow` reads).

    Live messages wait in a deque; a reader waits on one future that `offer` resolves. (An
    `asyncio.Queue` read under `wait_for` starts a task for every wait: with 10,000 idle streams
    that was 10,000 extra tasks.)"""

    def __init__(self, hub: EventHub, subject: str, after_seq: int) -> None:
        self.hub = hub
        self.subject = subject
        self.last_seq = after_seq
        self.replay: JetStreamContext.PushSubscription | None = None
        self.until = 0
        self.lagged = False
        self.buffer: deque[Msg] = deque()
        self.waiter: asyncio.Future[None] | None = None

    def offer(self, msg: Msg) -> None:
        """Called by the hub for every live message on the subject, in stream order."""
        if self.lagged:
            return
        if len(self.buffer) >= MAX_BUFFERED:
            self.lagged = True
            self.buffer.clear()
        else:
            self.buffer.append(msg)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    async def catch_up(self) -> None:
        """Open a replay from `last_seq` when the subject holds anything after it."""
        last = await self.hub.last_stored(self.subject)
        if last <= self.last_seq:
            return
        self.until = last
        config = ConsumerConfig(deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=self.last_seq + 1)
        bus = self.hub.bus
        self.replay = await bus.js.subscribe(
            self.subject, stream=bus.subjects.events_stream, ordered_consumer=True, config=config
        )

    async def next_msg(self, timeout: float) -> Msg:
        """The next message after `last_seq`; `TimeoutError` when none arrives in `timeout` seconds."""
        if self.lagged:
            self.lagged = False  # buffering again from here, before the replay's end is fixed
            await self.catch_up()
        if self.replay is not None:
            return await self._next_replayed(self.replay, timeout)
        deadline = time.monotonic() + timeout
        while True:
            while self.buffer:
                msg = self.buffer.popleft()
                seq = msg.metadata.sequence.stream
                if seq > self.last_seq:
                    self.last_seq = seq
                    return msg
            if self.lagged:
                return await self.next_msg(max(deadline - time.monotonic(), 0.001))
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            self.waiter = asyncio.get_running_loop().create_future()
            try:
                # Not `asyncio.wait_for`: on Python 3.11 it drops a cancellation that lands as the
                # message does (relay.py `next_message`).
                async with asyncio.timeout(remaining):  # TimeoutError when it expires
                    await self.waiter
            finally:
                self.waiter = None

    async def _next_replayed(self, replay: JetStreamContext.PushSubscription, timeout: float) -> Msg:
        try:
            msg = await replay.next_msg(timeout=timeout)
        except NatsTimeoutError as exc:
            raise TimeoutError from exc
        meta = msg.metadata
        self.last_seq = meta.sequence.stream
        if self.last_seq >= self.until or meta.num_pending == 0:
            await self._end_replay()
        return msg

    async def _end_replay(self) -> None:
        replay, self.replay = self.replay, None
        if replay is not None:
            await replay.unsubscribe()

    async def unsubscribe(self) -> None:
        self.hub.detach(self)
        await self._end_replay()


class EventHub:
    """The gateway process's single live subscription on every thread's events."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.prefix = bus.subjects.evt_thread("")
        self.feeds: dict[str, set[ThreadFeed]] = {}
        self.sub: JetStreamContext.PushSubscription | None = None

    async def start(self) -> None:
        config = ConsumerConfig(deliver_policy=DeliverPolicy.NEW)
        self.sub = await self.bus.js.subscribe(
            self.bus.subjects.evt_thread(">"),
            stream=self.bus.subjects.events_stream,
            ordered_consumer=True,
            config=config,
            cb=self._dispatch,
        )

    async def stop(self) -> None:
        if self.sub is not None:
            await self.sub.unsubscribe()
            self.sub = None

    def handles(self, subject: str) -> bool:
        return subject.startswith(self.prefix)

    async def _dispatch(self, msg: Msg) -> None:
        for feed in tuple(self.feeds.get(msg.subject, ())):
            feed.offer(msg)

    async def attach(self, subject: str, after_seq: int | None) -> ThreadFeed:
        """A feed that delivers the subject's messages after `after_seq` (replayed, then live), or
        from now on when `after_seq` is None."""
        feed = ThreadFeed(self, subject, after_seq or 0)
        self.feeds.setdefault(subject, set()).add(feed)
        if after_seq is None:
            return feed  # a dict insert: no round trip to the server
        try:
            await feed.catch_up()
        except BaseException:
            self.detach(feed)
            raise
        return feed

    def detach(self, feed: ThreadFeed) -> None:
        feeds = self.feeds.get(feed.subject)
        if feeds is not None:
            feeds.discard(feed)
            if not feeds:
                del self.feeds[feed.subject]

    async def last_stored(self, subject: str) -> int:
        """The stream sequence of the subject's newest stored message; 0 when it has none."""
        try:
            msg = await self.bus.js.get_last_msg(self.bus.subjects.events_stream, subject)
        except NotFoundError:
            return 0
        return msg.seq or 0

    @property
    def open_feeds(self) -> int:
        return sum(len(feeds) for feeds in self.feeds.values())
