"""The UI shell: pages are served with a strict CSP, and a `#token=` link signs in and leaves the address bar."""

from __future__ import annotations

from playwright.sync_api import Browser

from tests.e2e.browser import new_context
from tests.e2e.conftest import System


def test_pages_carry_a_strict_content_security_policy(system: System) -> None:
    with system.client() as client:
        for path in ("/", "/agent", "/admin", "/static/common/api.js"):
            response = client.get(path)
            assert response.status_code == 200, path
            csp = response.headers["content-security-policy"]
            assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp, path
            assert response.headers["x-content-type-options"] == "nosniff"
        assert "content-security-policy" not in client.get("/healthz").headers


def test_a_token_link_signs_in_and_is_removed_from_the_address_bar(system: System, browser: Browser) -> None:
    context = new_context(browser)
    page = context.new_page()
    page.goto(f"{system.url}/#token={system.token}")
    page.evaluate("async () => (await import('/static/common/auth.js')).adoptTokenFromHash()")
    assert page.evaluate("sessionStorage.getItem('pp.token')") == system.token
    assert "token=" not in page.url
    context.close()
