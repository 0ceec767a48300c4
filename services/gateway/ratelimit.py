"""Per-tenant and per-user token buckets for the endpoints that start work (docs/architecture.md §10).

In-process: with several gateway replicas each enforces its own share. Buckets refill
continuously at `per_minute / 60` tokens a second up to `per_minute` (the burst).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from services.gateway.errors import ApiError
from shared.auth.tokens import Principal


@dataclass
class Bucket:
    capacity: float
    tokens: float
    updated: float = field(default_factory=time.monotonic)

    def take(self, per_second: float) -> float:
        """0 when a token was taken, else the seconds until one is available."""
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * per_second)
        self.updated = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / per_second


class RateLimiter:
    def __init__(self, per_minute: int) -> None:
        self.per_second = per_minute / 60
        self.capacity = float(per_minute)
        self.buckets: dict[str, Bucket] = {}

    def check(self, key: str) -> float:
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = Bucket(self.capacity, self.capacity)
        return bucket.take(self.per_second)


@dataclass
class Limits:
    tenant: RateLimiter
    user: RateLimiter
    tenant_creation: RateLimiter
    widget_init: RateLimiter


def charge(limits: Limits, p: Principal) -> None:
    """Take one request from the caller's tenant and user buckets; 429 with Retry-After when empty."""
    enforce(limits.tenant, str(p.tenant_id), "tenant")
    enforce(limits.user, f"{p.tenant_id}:{p.sub}", "user")


def enforce(limiter: RateLimiter, key: str, scope: str) -> None:
    """Take one request from `key`'s bucket; 429 naming the scope, with Retry-After, when it is empty."""
    wait = limiter.check(key)
    if wait > 0:
        raise ApiError(
            429,
            "rate_limited",
            f"too many requests for this {scope}; retry in {math.ceil(wait)} s",
            {"retry_after_s": math.ceil(wait), "scope": scope},
        )
