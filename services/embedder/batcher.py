"""Micro-batching: concurrent callers' texts encoded together, each caller answered with its rows.

A transformer's cost per text falls with batch size on CPU (one call amortises the session's
overhead), while most requests carry one query or a few sentences. The oldest waiting request
opens a batch; requests arriving within `window_s`, or queued while the previous batch was being
encoded, join it up to `max_batch` texts (one request is never split); interactive requests (a
turn's query) are taken before bulk ones (a document on its way to `ready`), and those before
background ones (sentence vectors of a ready document), so a turn waits for at most one batch and
a document's second ingest phase never delays another's first. When the queue runs dry after
ingest work, the freed activations go back to the OS (shared/runtime/memory.py), so the service's
memory after a bulk ingest is what it was before it. The
model runs in one worker thread, so batches never compete for it; duplicates are encoded once.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from shared.runtime.memory import release_freed_memory

INTERACTIVE, BULK, BACKGROUND = 0, 1, 2


@dataclass(order=True)
class Pending:
    priority: int
    seq: int
    texts: list[str] = field(compare=False)
    done: asyncio.Future[np.ndarray] = field(compare=False)


@dataclass
class BatchStats:
    """Logged at shutdown and read by tests: how much batching actually happened."""

    batches: int = 0
    texts: int = 0
    most_requests: int = 0

    def record(self, requests: int, texts: int) -> None:
        self.batches += 1
        self.texts += texts
        self.most_requests = max(self.most_requests, requests)


class MicroBatcher:
    def __init__(self, encode: Callable[[list[str]], np.ndarray], *, window_s: float, max_batch: int) -> None:
        self._encode = encode
        self._window_s = window_s
        self._max_batch = max_batch
        self._queue: asyncio.PriorityQueue[Pending] = asyncio.PriorityQueue()
        self._seq = itertools.count()
        self.stats = BatchStats()

    async def embed(self, texts: list[str], priority: int = INTERACTIVE) -> np.ndarray:
        """Rows for `texts`; lower priority values go first (INTERACTIVE, BULK, BACKGROUND)."""
        pending = Pending(priority, next(self._seq), texts, asyncio.get_running_loop().create_future())
        await self._queue.put(pending)
        return await pending.done

    async def _collect(self) -> list[Pending]:
        """The oldest request, plus whatever arrives within the window (and while the model was busy)."""
        batch = [await self._queue.get()]
        size = len(batch[0].texts)
        if self._window_s > 0 and size < self._max_batch:
            await asyncio.sleep(self._window_s)
        while size < self._max_batch and not self._queue.empty():
            item = self._queue.get_nowait()
            batch.append(item)
            size += len(item.texts)
        return batch

    async def _encode_batch(self, batch: list[Pending]) -> None:
        unique = list(dict.fromkeys(t for p in batch for t in p.texts))
        self.stats.record(len(batch), len(unique))
        try:
            vectors = await asyncio.to_thread(self._encode, unique)
        except Exception as exc:
            for p in batch:
                if not p.done.done():
                    p.done.set_exception(exc)
            return
        row = {text: i for i, text in enumerate(unique)}
        for p in batch:
            if not p.done.done():
                p.done.set_result(vectors[[row[t] for t in p.texts]])

    async def run(self) -> None:
        """Serve batches until cancelled; callers still waiting then get CancelledError."""
        try:
            while True:
                batch = await self._collect()
                await self._encode_batch(batch)
                if self._queue.empty() and any(p.priority != INTERACTIVE for p in batch):
                    await asyncio.to_thread(release_freed_memory)
        finally:
            while not self._queue.empty():
                with contextlib.suppress(asyncio.QueueEmpty):
                    self._queue.get_nowait().done.cancel()
