"""Brute-force throttle of sign-in, per account (the address typed) and per client address.

After `free_failures` failures a key must wait `base * 2^(extra failures)` seconds (capped)
before its next try; a success clears the account's count. Keys are the typed email whether or
not it exists, so the throttle behaves the same for unknown addresses and leaks nothing.
In-process, like the request rate limits: each gateway replica throttles on its own.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass
class Failures:
    count: int = 0
    last: float = 0.0
    logged: bool = False


class SignInThrottle:
    def __init__(self, free_failures: int, base_delay_s: float, max_delay_s: float) -> None:
        self.free_failures = free_failures
        self.base_delay_s = base_delay_s
        self.max_delay_s = max_delay_s
        self.keys: dict[str, Failures] = {}

    def delay_after(self, failures: int) -> float:
        """Seconds a key with this many failures waits before its next try (0: no wait)."""
        extra = failures - self.free_failures
        if extra < 0:
            return 0.0
        return min(self.max_delay_s, self.base_delay_s * 2**extra)

    def wait(self, *keys: str) -> float:
        """Seconds until every key may try again."""
        now = time.monotonic()
        waits = [0.0]
        for key in keys:
            entry = self.keys.get(key)
            if entry is not None:
                waits.append(entry.last + self.delay_after(entry.count) - now)
        return max(waits)

    def failed(self, *keys: str) -> None:
        now = time.monotonic()
        for key in keys:
            entry = self.keys.setdefault(key, Failures())
            entry.count += 1
            entry.last = now
            if entry.count >= self.free_failures and not entry.logged:
                entry.logged = True  # once per throttled key, not on every refused try
                log.warning(
                    "sign-in throttled: %s key %s after %d failures, next delay %.1f s",
                    key.split(":", 1)[0],
                    hashlib.sha256(key.encode()).hexdigest()[:12],
                    entry.count,
                    self.delay_after(entry.count),
                )

    def succeeded(self, key: str) -> None:
        self.keys.pop(key, None)
