"""Accounts in a real browser against `policypal up`: sign-up → onboarding → workspace, a wrong
password, precise field errors, settings, and an invited colleague who sees only their own documents."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from playwright.sync_api import Browser, Page, expect

from tests.conftest import EXAMPLES
from tests.e2e.browser import PageLog, new_context, screenshot
from tests.e2e.conftest import System
from tests.e2e.helpers import upload
from tests.integration.oidc_provider import OidcProvider

PASSWORD = "a long enough password"


def email() -> str:
    return f"ui-{uuid.uuid4().hex[:10]}@example.com"


@contextmanager
def browser_page(browser: Browser) -> Iterator[tuple[Page, PageLog]]:
    context = new_context(browser)
    page = context.new_page()
    page.set_default_timeout(30_000)
    log = PageLog()
    log.attach(page)
    try:
        yield page, log
    finally:
        context.close()


def onboard(page: Page, company: str) -> None:
    expect(page.get_by_test_id("onboarding-submit")).to_be_visible()
    page.get_by_label("Company name").fill(company)
    page.get_by_label("Country").fill("Malaysia")
    page.get_by_label("Industry").fill("Retail banking")
    page.get_by_label("What does your company do?").fill("Savings accounts and small business loans.")


def sign_in(page: Page, system: System, address: str, password: str) -> None:
    page.goto(f"{system.url}/signin")
    page.get_by_test_id("signin-email").fill(address)
    page.get_by_test_id("signin-password").fill(password)
    page.get_by_test_id("signin-submit").click()


def session_token(page: Page) -> str:
    return page.evaluate("sessionStorage.getItem('pp.token')")


def test_sign_up_then_onboarding_then_the_workspace(system: System, browser: Browser) -> None:
    address = email()
    with browser_page(browser) as (page, log):
        page.goto(f"{system.url}/signup")
        page.get_by_test_id("signin-email").fill("not an email")
        page.get_by_test_id("signin-password").fill("short")
        page.get_by_test_id("signin-submit").click()
        expect(page.locator("#email-error")).to_have_text("Enter an email address like name@company.com.")
        expect(page.locator("#password-error")).to_have_text("Use at least 10 characters.")
        screenshot(page, "accounts-signup-errors")

        page.get_by_label("Your name").fill("Aisha Rahman")
        page.get_by_test_id("signin-email").fill(address)
        page.get_by_test_id("signin-password").fill(PASSWORD)
        screenshot(page, "accounts-signup")
        page.get_by_test_id("signin-submit").click()
        page.wait_for_url(f"{system.url}/onboarding")
        onboard(page, "Acme Bank Berhad")
        screenshot(page, "accounts-onboarding")
        page.get_by_test_id("onboarding-submit").click()
        page.wait_for_url(f"{system.url}/")
        expect(page.locator("#docs-h")).to_be_visible()
        screenshot(page, "accounts-workspace-after-onboarding")

        with system.client(session_token(page)) as client:
            me = client.get("/v1/me").json()
        assert me["email"] == address and me["onboarded"] is True
        assert me["profile"]["company"] == "Acme Bank Berhad" and me["profile"]["country"] == "Malaysia"

        # A second sign-in goes straight to the workspace; settings edit the same profile.
        page.evaluate("sessionStorage.clear()")
        sign_in(page, system, address, PASSWORD)
        page.wait_for_url(f"{system.url}/")
        page.get_by_test_id("open-settings").click()
        page.wait_for_url(f"{system.url}/settings")
        expect(page.get_by_label("Company name")).to_have_value("Acme Bank Berhad")
        page.get_by_label("Industry").fill("Islamic banking")
        page.get_by_test_id("settings-save").click()
        expect(page.get_by_role("status")).to_contain_text("Saved")
        screenshot(page, "accounts-settings")
        with system.client(session_token(page)) as client:
            assert client.get("/v1/me").json()["profile"]["industry"] == "Islamic banking"
        # The only console lines are Chromium's notes on the deliberately refused (422) sign-up.
        assert log.page_errors == []
        assert all("status of 422" in line for line in log.console_errors), log.console_errors


def test_a_wrong_password_gets_a_clear_message(system: System, browser: Browser) -> None:
    address = email()
    with system.client() as anonymous:
        assert anonymous.post("/v1/auth/signup", json={"email": address, "password": PASSWORD}).status_code == 201
    with browser_page(browser) as (page, _log):
        sign_in(page, system, address, "not the password")
        expect(page.get_by_test_id("signin-error")).to_have_text("Email or password is incorrect.")
        assert page.url == f"{system.url}/signin" and session_token(page) is None
        screenshot(page, "accounts-signin-wrong-password")
        # An address that has no account gets the very same answer.
        sign_in(page, system, email(), "not the password")
        expect(page.get_by_test_id("signin-error")).to_have_text("Email or password is incorrect.")


def fresh_tenant_admin(system: System) -> str:
    with system.client(system.mint("--role", "operator")) as ops:
        created = ops.post("/v1/admin/tenants", json={"name": f"Team {uuid.uuid4().hex[:6]}", "allowed_domains": []})
        created.raise_for_status()
    return system.mint("--tenant", created.json()["id"], "--user", "team-admin", "--role", "admin")


def test_an_invited_colleague_signs_in_and_sees_only_their_own_documents(system: System, browser: Browser) -> None:
    admin = fresh_tenant_admin(system)
    address = email()
    with system.client(admin) as client:
        admins_doc = upload(client, EXAMPLES / "data-retention-policy.pdf", "Admin's private policy")
        link = client.post("/v1/admin/invites", json={"email": address, "role": "user"}).json()["link"]
    with browser_page(browser) as (page, log):
        page.goto(link)
        expect(page.get_by_role("heading", name="Join your team on PolicyPal")).to_be_visible()
        assert "invite=" not in page.url  # the one-time token leaves the address bar at once
        page.get_by_label("Your name").fill("Colleague")
        page.get_by_test_id("signin-password").fill(PASSWORD)
        screenshot(page, "accounts-invite")
        page.get_by_test_id("signin-submit").click()
        onboard(page, "Team Co")
        page.get_by_test_id("onboarding-submit").click()
        page.wait_for_url(f"{system.url}/")

        # Signed out on the sign-in page, not under the workspace: a workspace whose session is cleared
        # sends itself to /signin at its next call, which aborted the test's own navigation there.
        page.goto(f"{system.url}/signin")
        page.evaluate("sessionStorage.clear()")
        sign_in(page, system, address, PASSWORD)
        page.wait_for_url(f"{system.url}/")
        with system.client(session_token(page)) as colleague:
            own = upload(colleague, EXAMPLES / "data-retention-policy.pdf", "Colleague's own policy")
        page.reload()
        expect(page.locator(f"[data-testid=doc-item][data-doc-id='{own['id']}']")).to_be_visible()
        expect(page.locator(f"[data-testid=doc-item][data-doc-id='{admins_doc['id']}']")).to_have_count(0)
        expect(page.locator("[data-testid=doc-item]")).to_have_count(1)
        screenshot(page, "accounts-colleague-workspace")
        assert log.page_errors == []


def test_single_sign_on_round_trip_in_the_browser(system: System, browser: Browser, oidc: OidcProvider) -> None:
    tag = uuid.uuid4().hex[:8]
    oidc.user = {"sub": f"idp-{tag}", "email": f"sso-{tag}@corp.example", "groups": ["pp-admins"]}
    with browser_page(browser) as (page, log):
        page.goto(f"{system.url}/signin")
        button = page.get_by_test_id("signin-sso")
        expect(button).to_have_text("Continue with Corp SSO")
        screenshot(page, "accounts-signin")
        button.click()
        # Gateway → provider → gateway callback → sign-in page hand-off → onboarding.
        page.wait_for_url(f"{system.url}/onboarding")
        assert "token" not in page.url and "code=" not in page.url
        onboard(page, "Corp Ltd")
        page.get_by_test_id("onboarding-submit").click()
        page.wait_for_url(f"{system.url}/")
        expect(page.locator("#docs-h")).to_be_visible()
        with system.client(session_token(page)) as client:
            me = client.get("/v1/me").json()
        assert me["email"] == f"sso-{tag}@corp.example" and me["role"] == "admin"
        assert log.page_errors == []
