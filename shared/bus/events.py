"""Publishing a run's events on `pp.evt.thread.<id>` with deterministic de-duplication ids.

Ids are `<run_id>:<stage>:<n>`, so when a redelivered command replays a stage, the events it
already published within JetStream's duplicate window are dropped by the server.

Token deltas are coalesced: a token after a quiet window is published at once and opens a short
window (PP_TOKEN_WINDOW_MS, 50 ms); everything said within it goes out as one `token` event when
it closes, so a fast model costs a JetStream publish per window, not per token. Any other event,
and the end of a stage, flushes the window first, so the text always precedes the status or
terminal event that follows it.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
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
    # Publishes go out one at a time, in the order they took the lock (asyncio.Lock is FIFO).
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def subject(self) -> str:
        return self.bus.subjects.evt_thread(self.thread_id)

    async def emit(self, event: ThreadEventBase) -> None:
        if isinstance(event, TokenEvent) and self.token_window_s > 0:
            await self._coalesce(event)
            return
        await self.flush()
        async with self._lock:
            await self._publish_next(event)

    async def emit_once(self, event: ThreadEventBase, key: str) -> None:
        """Publish an event whose identity is `key` alone (terminal events)."""
        await self.flush()
        async with self._lock:
            await publish(self.bus, self.subject, event, msg_id=f"{self.run_id}:{key}")

    async def status(self, node: str, message: str, **extra: object) -> None:
        await self.emit(StatusEvent(thread_id=self.thread_id, run_id=self.run_id, node=node, message=message, **extra))

    async def flush(self) -> None:
        """Publish the tokens of the open window now (before another event, or at the stage's end)."""
        timer, self._timer = self._timer, None
        if timer is not None and not timer.done():
            timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timer
        await self._publish_pending()

    async def _coalesce(self, event: TokenEvent) -> None:
        """Leading edge: a token after a quiet window goes out at once (the first words show without
        delay, and a slow model's deltas are not held back); tokens within the window wait for it."""
        now = asyncio.get_running_loop().time()
        if (self._timer is None or self._timer.done()) and now >= self._quiet_at:
            self._quiet_at = now + self.token_window_s
            async with self._lock:
                await self._publish_next(event)
            return
        self._pending.append(event.text)
        if self._timer is None or self._timer.done():
            self._timer = asyncio.create_task(self._flush_after(self._quiet_at - now))

    async def _flush_after(self, delay_s: float) -> None:
        await asyncio.sleep(delay_s)
        self._quiet_at = asyncio.get_running_loop().time() + self.token_window_s
        # Shielded: a flush cancelling this timer must not cut a publish already under way.
        await asyncio.shield(self._publish_pending())

    async def _publish_pending(self) -> None:
        async with self._lock:
            if not self._pending:
                return
            text = "".join(self._pending)
            self._pending.clear()
            await self._publish_next(TokenEvent(thread_id=self.thread_id, run_id=self.run_id, text=text))

    async def _publish_next(self, event: ThreadEventBase) -> None:
        self._n += 1
        await publish(self.bus, self.subject, event, msg_id=f"{self.run_id}:{self.stage}:{self._n}")
