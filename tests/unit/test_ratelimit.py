"""Token buckets: a burst up to capacity, then refusal with the wait until the next token."""

from __future__ import annotations

from services.gateway.ratelimit import RateLimiter


def test_bucket_allows_capacity_then_refuses_per_key():
    limiter = RateLimiter(per_minute=3)
    assert [limiter.check("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = limiter.check("a")
    assert 0 < wait <= 20.0
    assert limiter.check("b") == 0.0
