"""The sign-in throttle's schedule and the SSO claim → role mapping, without a server."""

from __future__ import annotations

import logging

from services.gateway.signin_throttle import SignInThrottle
from services.gateway.sso import role_for
from shared.config import OidcProvider


def test_delay_doubles_after_the_free_failures_and_is_capped():
    throttle = SignInThrottle(free_failures=5, base_delay_s=1.0, max_delay_s=300.0)
    assert [throttle.delay_after(n) for n in range(1, 9)] == [0, 0, 0, 0, 1, 2, 4, 8]
    assert throttle.delay_after(40) == 300


def test_a_throttled_key_is_logged_once_without_the_address(caplog):
    throttle = SignInThrottle(free_failures=2, base_delay_s=10.0, max_delay_s=60.0)
    with caplog.at_level(logging.WARNING):
        for _ in range(5):
            throttle.failed("account:victim@example.com", "address:10.0.0.1")
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2  # one per key (account, address), not one per failure
    assert all("victim" not in line and "10.0.0.1" not in line for line in lines)
    assert throttle.wait("account:victim@example.com") > 0
    throttle.succeeded("account:victim@example.com")
    assert throttle.wait("account:victim@example.com") == 0
    assert throttle.wait("address:10.0.0.1") > 0  # a success does not clear the address


def test_the_strongest_mapped_role_wins_else_the_default():
    provider = OidcProvider(
        issuer="https://idp", client_id="c", role_map={"admins": "admin", "helpdesk": "agent"}, default_role=None
    )
    assert role_for(provider, {"groups": ["helpdesk", "admins"]}) == "admin"
    assert role_for(provider, {"groups": "helpdesk"}) == "agent"
    assert role_for(provider, {"groups": ["staff"]}) is None
    assert role_for(provider.model_copy(update={"default_role": "user"}), {}) == "user"
