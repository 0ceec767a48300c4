"""Publishing a run's events on `pp.evt.thread.<id>` with deterministic de-duplication ids.

Ids are `<run_id>:<stage>:<n>`, so when a redelivered command replays a stage, the events it
already published within JetStream's duplicate window are dropped by the server.

Token deltas are coalesced: a token after a quiet window is published at once and opens a short
window (PP_TOKEN_WINDOW_MS, 50 ms); everything said within it goes out as one `token` event when
it closes, so a fast model costs a JetStream publish per window, not per token. Any other event,
and the end of a stage, flushes the window first, so the text always precedes the status or
terminal event that follows it.

The stage does not wait for each event's publish acknowledgement: events join an outbox that one
sender task publishes in order, one at a time, while the graph goes on (the acknowledgements were
~6 ms of every turn, `policypal bench turn`). `flush()` (a stage's end, before its outcome) waits
until the outbox is empty and raises the publish failure that emptied it, if any; an emit after a
failure raises it at once, so a stage stops soon after its events stop reaching the bus.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections import deque
from dataclasses import dataclass, field

from shared.bus.connection import Bus
from shared.bus.publish import publish
from shared.contracts.events import StatusEvent, ThreadEventBase, TokenEvent


@dataclass
class RunEvents:
    bus: Bus
    thread_id: uuid.UUID
    run_id: uuid.UUID
    stage: str
    token_window_s: float = 0.05
    _n: int = field(default=0)
    _pending: list[str] = field(default_factory=list)
    _timer: asyncio.Task[None] | None = field(default=None)
    _quiet_at: float = field(default=0.0)
    # Events on their way to the bus, in order, with their de-duplication ids.
    _outbox: deque[tuple[ThreadEventBase, str]] = field(default_factory=deque)
    _sender: asyncio.Task[None] | None = field(default=None)
    _failure: Exception | None = field(default=None)

    @property
    def subject(self) -> str:
        return self.bus.subjects.evt_thread(self.thread_id)

    async def emit(self, event: ThreadEventBase) -> None:
        self._raise_failure()
        if isinstance(event, TokenEvent) and self.token_window_s > 0:
            self._coalesce(event)
            return
        self._send_pending()
        self._send(event)

    async def emit_once(self, event: ThreadEventBase, key: str) -> None:
        """Publish an event whose identity is `key` alone (terminal events), after every event before it."""
        await self.flush()
        await publish(self.bus, self.subject, event, msg_id=f"{self.run_id}:{key}")

    async def status(self, node: str, message: str, **extra: object) -> None:
        await self.emit(StatusEvent(thread_id=self.thread_id, run_id=self.run_id, node=node, message=message, **extra))

    async def flush(self) -> None:
        """Send the open window's tokens now, and wait until everything emitted is on the bus."""
        timer, self._timer = self._timer, None
        if timer is not None and not timer.done():
            timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timer
        self._send_pending()
        if self._sender is not None:
            # Shielded: a caller cancelled while it waits leaves the sender to finish the outbox.
            await asyncio.shield(self._sender)
        self._raise_failure()

    def _coalesce(self, event: TokenEvent) -> None:
        """Leading edge: a token after a quiet window goes out at once (the first words show without
        delay, and a slow model's deltas are not held back); tokens within the window wait for it."""
        now = asyncio.get_running_loop().time()
        if (self._timer is None or self._timer.done()) and now >= self._quiet_at:
            self._quiet_at = now + self.token_window_s
            self._send(event)
            return
        self._pending.append(event.text)
        if self._timer is None or self._timer.done():
            self._timer = asyncio.create_task(self._send_after(self._quiet_at - now))

    async def _send_after(self, delay_s: float) -> None:
        await asyncio.sleep(delay_s)
        self._quiet_at = asyncio.get_running_loop().time() + self.token_window_s
        self._send_pending()

    def _send_pending(self) -> None:
        if not self._pending:
            return
        text = "".join(self._pending)
        self._pending.clear()
        self._send(TokenEvent(thread_id=self.thread_id, run_id=self.run_id, text=text))

    def _send(self, event: ThreadEventBase) -> None:
        if self._failure is not None:
            return  # nothing after a lost event: the stream would have a gap
        self._n += 1
        self._outbox.append((event, f"{self.run_id}:{self.stage}:{self._n}"))
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        while self._outbox:
            event, msg_id = self._outbox[0]
            try:
                await publish(self.bus, self.subject, event, msg_id=msg_id)
            except Exception as exc:  # handed to the stage by its next emit or flush
                self._failure = exc
                self._outbox.clear()
                return
            self._outbox.popleft()

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise self._failure
