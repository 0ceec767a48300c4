"""How fast chunk vectors are being added, for the "meaning search ready in ~N s" estimate.

With PP_INGEST_READY_AT=words (the default) a document is `ready`, searchable by its words, while
the second phase adds its chunk vectors (docs/ingest.md). The progress events carry an estimate
of when meaning search covers it: the chunks still waiting for a vector (the owner's, this
document's and those queued before it) over the rate the second phase has been reaching on this
worker. No rate is assumed before one is measured: the estimate is then absent, not a guess.
"""

from __future__ import annotations

import time

# Weight of the newest slice: a few slices follow a change of load (the embedder is shared).
SMOOTHING = 0.3


class VectorPace:
    """Chunks per second of the second phase, smoothed over its slices (one per ingest worker)."""

    def __init__(self) -> None:
        self.per_s: float | None = None

    def record(self, chunks: int, seconds: float) -> None:
        if chunks <= 0 or seconds <= 0:
            return
        rate = chunks / seconds
        self.per_s = rate if self.per_s is None else SMOOTHING * rate + (1 - SMOOTHING) * self.per_s

    def eta_s(self, pending: int) -> float | None:
        """Seconds until `pending` chunks have vectors at the measured pace; None before any."""
        if pending <= 0:
            return 0.0
        return round(pending / self.per_s, 1) if self.per_s else None


def clock() -> float:
    return time.monotonic()
