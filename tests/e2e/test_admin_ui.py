"""The admin page (/admin): the widget's embed snippet and the tenant's allowed sites, in a real browser."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from tests.e2e.browser import PageLog, axe_violations, new_context, screenshot
from tests.e2e.conftest import System


def test_an_admin_copies_the_snippet_and_edits_allowed_sites_with_inline_errors(system: System, browser: Browser):
    with system.client(system.mint("--role", "operator")) as ops:
        tenant = ops.post("/v1/admin/tenants", json={"name": "Fabrikam", "allowed_domains": []}).json()
    token = system.mint("--tenant", tenant["id"], "--user", "fay@fabrikam", "--role", "admin")
    context = new_context(browser, bypass_csp=True)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=system.url)
    page = context.new_page()
    log = PageLog()
    log.attach(page)
    page.goto(f"{system.url}/admin#token={token}")

    snippet = page.get_by_test_id("embed-snippet")
    expected = f'<script src="{system.url}/widget.js" data-tenant="{tenant["id"]}" async></script>'
    expect(snippet).to_have_text(expected)
    page.get_by_label("Title").fill("Fabrikam Help")
    expect(snippet).to_contain_text('data-title="Fabrikam Help"')
    page.get_by_role("button", name="Copy").click()
    expect(page.get_by_text("Copied to the clipboard")).to_be_visible()
    assert 'data-title="Fabrikam Help"' in page.evaluate("navigator.clipboard.readText()")

    origins = page.get_by_test_id("allowed-origin")
    origins.first.fill("https://shop.fabrikam.example")
    page.get_by_role("button", name="Add a site").click()
    origins.nth(1).fill("shop.fabrikam.example/path")
    page.get_by_role("button", name="Add a site").click()
    origins.nth(2).fill("http://localhost:3000")
    page.get_by_role("button", name="Save allowed sites").click()
    error = page.get_by_test_id("origin-error")
    expect(error).to_have_count(1)
    expect(error).to_contain_text("is not an origin like https://shop.example")
    expect(origins.nth(1)).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_role("alert")).to_contain_text("nothing was saved")
    screenshot(page, "admin-allowed-sites-error")
    with system.client(token) as client:
        assert client.get(f"/v1/admin/tenants/{tenant['id']}").json()["allowed_domains"] == []

    origins.nth(1).fill("https://www.fabrikam.example")
    page.get_by_role("button", name="Save allowed sites").click()
    expect(page.get_by_role("status").filter(has_text="Saved")).to_contain_text("3 site(s)")
    expect(error).to_have_count(0)
    with system.client(token) as client:
        saved = client.get(f"/v1/admin/tenants/{tenant['id']}").json()["allowed_domains"]
    assert saved == ["https://shop.fabrikam.example", "https://www.fabrikam.example", "http://localhost:3000"]
    page.get_by_role("button", name="Remove origin 3").click()
    page.get_by_role("button", name="Save allowed sites").click()
    expect(page.get_by_role("status").filter(has_text="Saved")).to_contain_text("2 site(s)")
    screenshot(page, "admin-allowed-sites")
    assert axe_violations(page) == []
    # The browser logs the refused save (422) itself; the page adds nothing.
    assert log.page_errors == [] and all("422" in e for e in log.console_errors), log.console_errors

    # An agent's token is not enough for this page; the page says so instead of failing silently.
    agent = system.mint("--tenant", tenant["id"], "--user", "al", "--role", "agent")
    other = context.new_page()
    other.goto(f"{system.url}/admin#token={agent}")
    expect(other.get_by_role("alert")).to_contain_text(re.compile("not an admin"))
    context.close()
