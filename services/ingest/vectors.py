"""Embedding a document's texts at ingest: sorted by length, sent in slices, waiting out an
embedding service that restarts.

A whole document is sorted by length before it is cut into requests, so each batch the model
runs pads to similar lengths (a 10-Q's sentences run from 3 to 300 tokens; sorting only within a
request left most of that padding). Rows come back in the caller's order.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

import numpy as np

from shared.embeddings.client import EmbeddingUnavailable
from shared.embeddings.provider import embed_async

log = logging.getLogger(__name__)

Progress = Callable[[int, int], Awaitable[None]]


async def embed_waiting(texts: list[str], *, wait_s: float, background: bool = False) -> np.ndarray:
    """Embed, waiting out an embedding service that is down or restarting (the consumer keeps
    the job alive meanwhile); only after `wait_s` does the job go back to the queue."""
    deadline = time.monotonic() + wait_s
    delay = 0.5
    while True:
        try:
            return await embed_async(texts, stored=False, bulk=True, background=background)
        except EmbeddingUnavailable as exc:
            if time.monotonic() + delay > deadline:
                raise
            log.warning("%s; ingest retries in %.1fs", exc, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)


async def embed_sorted(
    texts: list[str], *, dim: int, slice_size: int, wait_s: float, progress: Progress, background: bool = False
) -> np.ndarray:
    """Rows for `texts` in their order, computed shortest first in slices of `slice_size`;
    `progress(done, total)` before each slice."""
    out = np.zeros((len(texts), dim), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for start in range(0, len(order), slice_size):
        await progress(start, len(texts))
        rows = order[start : start + slice_size]
        out[rows] = await embed_waiting([texts[i] for i in rows], wait_s=wait_s, background=background)
    return out
