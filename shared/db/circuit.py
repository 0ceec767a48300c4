"""A circuit breaker in front of the connection pool: during a Postgres outage, fail at once.

Without it every request waits the pool's acquire timeout before its 503, and a burst of requests
queues behind the pool. Once a connection attempt fails, the circuit opens: callers get
`DatabaseUnavailable` immediately, except one probe per `probe_interval_s` that really tries the
pool, so the first success after Postgres is back closes the circuit again. State changes are
logged once each — an outage is one warning and one recovery line, not a traceback per request.
"""

from __future__ import annotations

import logging
import time

import psycopg
from psycopg_pool import PoolTimeout

from shared.runtime.causes import cause_of

log = logging.getLogger(__name__)


class DatabaseUnavailable(psycopg.OperationalError):
    """Postgres is known to be down; raised without touching the pool (maps to 503 like any outage)."""


class Circuit:
    def __init__(self, probe_interval_s: float = 0.5) -> None:
        self.probe_interval_s = probe_interval_s
        self.opened_at: float | None = None
        self.next_probe_at = 0.0

    @property
    def is_open(self) -> bool:
        return self.opened_at is not None

    def admit(self) -> None:
        """Let the call through (closed circuit, or this call is the probe) or raise at once."""
        if self.opened_at is None:
            return
        now = time.monotonic()
        if now < self.next_probe_at:
            raise DatabaseUnavailable("the database is unavailable (circuit open)")
        self.next_probe_at = now + self.probe_interval_s

    def succeeded(self) -> None:
        if self.opened_at is not None:
            log.warning("database is back after %.1f s", time.monotonic() - self.opened_at)
            self.opened_at = None

    def failed(self, reason: BaseException) -> None:
        now = time.monotonic()
        if self.opened_at is None:
            log.warning("database unavailable, failing fast until it is back: %s", reason)
            self.opened_at = now
        self.next_probe_at = now + self.probe_interval_s


def database_failure(exc: BaseException) -> bool:
    """Whether `exc` (or what caused it) is Postgres being unreachable, not a failed statement."""
    return cause_of(exc, (psycopg.OperationalError, PoolTimeout)) is not None
