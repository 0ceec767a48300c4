"""The UI shell: pages are served with a strict CSP, and a `#token=` link signs in and leaves the address bar."""

from __future__ import annotations

from playwright.sync_api import Browser

from tests.e2e.browser import new_context
from tests.e2e.conftest import System


def test_pages_carry_a_strict_content_security_policy(system: System) -> None:
    with system.client() as client:
        for path in ("/", "/agent", "/admin", "/signin", "/onboarding", "/static/common/api.js"):
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


def test_every_shared_module_and_vendored_library_loads_in_the_browser(system: System, browser: Browser) -> None:
    context = new_context(browser)
    page = context.new_page()
    # The sign-in page: `/` without a session navigates there, which would race the imports below.
    page.goto(f"{system.url}/signin")
    modules = [
        "/static/common/auth.js",
        "/static/common/api.js",
        "/static/common/sse.js",
        "/static/common/html.js",
        "/static/common/signin.js",
        "/static/common/actions.js",
        "/static/vendor/preact/hooks.mjs",
        "/static/vendor/htm/htm.mjs",
        "/static/vendor/marked/marked.esm.js",
        "/static/vendor/dompurify/purify.es.mjs",
        "/static/vendor/pdfjs/pdf.min.mjs",
    ]
    failures = page.evaluate(
        """async (modules) => {
            const failures = [];
            for (const m of modules) {
                try { await import(m); } catch (e) { failures.push(`${m}: ${e}`); }
            }
            return failures;
        }""",
        modules,
    )
    assert failures == []
    context.close()
