"""Sources at hand and conversations with addresses, in a real browser against `policypal up`.

The sources panel opens by itself beside an answer with sources, collapses to a peek strip, stays
beside the chat at 1,024 px and becomes a drawer on a phone; citations show their quote on hover.
A conversation lives at /c/<thread_id>: a reload or a shared link reopens it with its sources and a
pending PalAssist question, and a history that fails to load says so and offers a retry. A set of
eight documents answers; the composer warns at the fifth document tagged one by one.
"""

from __future__ import annotations

import re
import uuid

from playwright.sync_api import Browser, Route, expect

from tests.conftest import EXAMPLES
from tests.e2e.browser import PageLog, axe_violations, new_context, screenshot
from tests.e2e.conftest import System
from tests.e2e.helpers import ask, terminal, upload, wait_ingested
from tests.e2e.test_workspace_ui import fresh_tenant, ready_document, workspace

THREAD_URL = re.compile(r"/c/[0-9a-f-]{36}$")
LICENCES = ("mit", "bsd-3-clause", "apache-2.0", "mpl-2.0", "cc0-1.0", "psf-2.0", "artistic-1.0", "lgpl-3.0")


def test_the_sources_panel_opens_collapses_and_stays_reachable_from_laptop_to_phone(
    system: System, browser: Browser
) -> None:
    with workspace(system, browser, bypass_csp=True) as ws:
        page = ws.page
        ready_document(ws, EXAMPLES / "data-retention-policy.pdf", "Retention Policy", doc_type="company_policy")
        ws.say(("Inq", "action"), ("Retention", "document"), "How long is CCTV footage kept?")
        answer = ws.wait_answer()
        panel = page.get_by_test_id("sources-panel")
        expect(panel).to_be_visible()  # open beside the answer that has sources
        expect(page.get_by_test_id("source-item").first).to_contain_text("Retention Policy (v1)")
        screenshot(page, "workspace-sources-1440")

        # Hover quote: the cited passage's words, as text, without leaving the answer.
        citation = answer.get_by_test_id("citation").first
        quote = citation.get_attribute("data-quote")
        assert quote and quote.startswith("Retention Policy (v1)") and "“" in quote, quote
        citation.hover()
        tip = answer.get_by_test_id("citation-quote")
        expect(tip).to_have_text(quote)
        box, frame = tip.bounding_box(), page.locator(".messages").bounding_box()
        assert frame["x"] <= box["x"] and box["x"] + box["width"] <= frame["x"] + frame["width"], (box, frame)
        screenshot(page, "workspace-citation-hover")
        page.mouse.move(5, 5)
        expect(tip).to_have_count(0)

        page.get_by_test_id("sources-collapse").click()
        peek = page.get_by_test_id("sources-peek")
        expect(peek).to_be_visible()
        expect(peek).to_have_attribute("data-count", "1")
        expect(panel).to_have_count(0)
        assert page.locator(".middle").bounding_box()["width"] > 1000  # the chat got the room
        ws.say(("Inq", "action"), ("Retention", "document"), "How long are job applicant records kept?")
        ws.wait_answer(2)
        expect(panel).to_be_visible()  # the next answer with sources opens it again

        page.set_viewport_size({"width": 1024, "height": 768})
        expect(panel).to_be_visible()
        chat, sources = page.locator(".middle").bounding_box(), panel.bounding_box()
        assert sources["x"] >= chat["x"] + chat["width"] - 1 and sources["x"] + sources["width"] <= 1024
        assert chat["width"] >= 420, chat
        screenshot(page, "workspace-sources-1024")
        assert axe_violations(page) == []

        page.set_viewport_size({"width": 390, "height": 844})
        page.get_by_test_id("sources-collapse").click()
        expect(peek).to_be_visible()
        box = peek.bounding_box()
        assert box["x"] + box["width"] <= 390 and box["y"] < 200, box  # a bar at the top right of the chat
        assert page.locator(".msg.assistant").last.bounding_box()["width"] <= 390
        screenshot(page, "workspace-sources-390-peek")
        peek.click()
        expect(panel).to_be_visible()
        drawer = panel.bounding_box()
        assert drawer["x"] >= 0 and drawer["x"] + drawer["width"] <= 390
        screenshot(page, "workspace-sources-390")
        page.get_by_test_id("sources-collapse").click()
        page.get_by_test_id("open-nav").click()
        expect(page.get_by_role("heading", name="Conversations")).to_be_in_viewport()
        page.wait_for_timeout(300)  # the drawer's slide-in, for the screenshot
        screenshot(page, "workspace-nav-390")
        assert axe_violations(page) == []
        page.get_by_test_id("conversation-item").first.get_by_role("button").first.click()
        expect(page.get_by_test_id("conversation-item").first).to_be_hidden()  # the drawer closed
        ws.clean()


def test_a_conversation_has_an_address_that_reopens_it_with_sources_and_pending_question(
    system: System, browser: Browser
) -> None:
    with workspace(system, browser) as ws:
        page = ws.page
        ready_document(ws, EXAMPLES / "data-retention-policy.pdf", "Retention Policy")
        ws.say(("Inq", "action"), ("Retention", "document"), "How long is CCTV footage kept?")
        ws.wait_answer()
        expect(page).to_have_url(THREAD_URL)
        address = page.url
        thread_id = address.rsplit("/", 1)[1]
        expect(page.get_by_test_id("chat-title")).not_to_have_text("Untitled conversation")
        title = page.get_by_test_id("chat-title").inner_text()
        expect(page.get_by_test_id("message-time")).to_have_count(2)

        page.reload()
        expect(page).to_have_url(address)
        expect(ws.answers()).to_have_count(1)
        expect(page.get_by_test_id("source-item").first).to_be_visible()
        expect(page.get_by_test_id("chat-title")).to_have_text(title)

        # A question left pending is asked again where the link lands.
        policy = ws.client.get("/v1/documents").json()["groups"][0]["documents"][0]
        events = ask(ws.client, "Compare it", action="compare", tagged_doc_ids=[policy["id"]], thread_id=thread_id)
        assert terminal(events)["event"] == "interrupt"

        # A shared link: a fresh tab of the same person (the token arrives with the link).
        token = ws.client.headers["Authorization"].split()[1]
        other = new_context(browser)
        try:
            tab = other.new_page()
            log = PageLog()
            log.attach(tab)
            tab.goto(f"{address}#token={token}")
            expect(tab.get_by_test_id("palassist")).to_be_visible()
            expect(tab.locator("[data-testid=message-assistant]")).to_have_count(1)
            expect(tab.get_by_test_id("source-item").first).to_be_visible()
            expect(tab).to_have_url(address)  # the token left the address bar, the conversation stays
            assert not log.page_errors
        finally:
            other.close()

        # New chat goes back to /, the browser's Back button returns to the conversation.
        page.get_by_role("button", name="+ New chat").click()
        expect(page).to_have_url(f"{system.url}/")
        page.go_back()
        expect(page).to_have_url(address)
        expect(page.get_by_test_id("palassist")).to_be_visible()

        # A history that fails to load says so and offers a retry, which loads it.
        failures = {"left": 1}

        def fail_once(route: Route) -> None:
            if failures["left"]:
                failures["left"] -= 1
                route.fulfill(status=503, json={"error": {"code": "unavailable", "message": "Database unavailable"}})
            else:
                route.continue_()

        page.route(re.compile(r".*/v1/chat/history/.*"), fail_once)
        page.reload()
        error = page.get_by_test_id("load-error")
        expect(error).to_contain_text("The conversation could not be loaded: Database unavailable")
        screenshot(page, "workspace-load-error")
        error.get_by_role("button", name="Try again").click()
        expect(error).to_have_count(0)
        expect(ws.answers()).to_have_count(1)
        page.unroute(re.compile(r".*/v1/chat/history/.*"))

        # Someone else's (or no) conversation: not an empty chat, a clear message.
        page.goto(f"{system.url}/c/{uuid.uuid4()}")
        expect(page.get_by_test_id("load-error")).to_contain_text("does not exist")
        ws.log.console_errors[:] = [e for e in ws.log.console_errors if "503" not in e and "404" not in e]
        ws.clean()


def test_a_set_of_eight_documents_answers_and_the_composer_warns_before_a_sixth_tag(
    system: System, browser: Browser
) -> None:
    with workspace(system, browser) as ws:
        page = ws.page
        docs = [
            upload(
                ws.client,
                EXAMPLES / "eval" / "texts" / f"{name}.txt",
                name.upper(),
                set_name="Open-source licences",
                doc_type="company_policy",
            )
            for name in LICENCES
        ]
        for doc in docs:
            assert wait_ingested(ws.client, doc["id"])["status"] == "ready"
        page.reload()
        expect(page.locator("[data-testid=doc-item][data-status=ready]")).to_have_count(len(LICENCES))
        expect(page.locator("[data-testid=doc-item].type-company_policy")).to_have_count(len(LICENCES))

        ws.say(("Inq", "action"), ("Open-source", "set"), "Must the copyright notice be kept in copies?")
        answer = ws.wait_answer()
        expect(answer.locator(".badge.action")).to_have_text("Inquire")
        expect(page.get_by_test_id("source-item").first).to_be_visible()
        found = answer.locator(".steps .chip")
        expect(found).to_have_count(len(LICENCES))  # the whole set was the scope

        page.get_by_test_id("chat-input").click()
        for name in LICENCES[:5]:
            ws.mention(name.upper(), "document")
        warning = page.get_by_test_id("tag-limit")
        expect(warning).to_contain_text("5 documents tagged")
        page.keyboard.type("@")
        categories = page.locator("[data-testid=mention-option]").evaluate_all(
            "els => els.map(e => e.dataset.category)"
        )
        assert "document" not in categories and "set" in categories, categories
        screenshot(page, "workspace-tag-limit")
        page.keyboard.press("Escape")
        page.keyboard.press("Backspace")  # the "@"
        page.keyboard.press("Backspace")  # the space after the fifth chip
        page.keyboard.press("Backspace")  # the fifth chip
        expect(warning).to_have_count(0)
        ws.clean()


def test_the_demo_user_is_greeted_by_name(system: System, browser: Browser) -> None:
    context = new_context(browser)
    try:
        page = context.new_page()
        page.goto(f"{system.url}/#token={system.token}")
        expect(page.get_by_test_id("signed-in-as")).to_have_text("Demo User")
    finally:
        context.close()


def test_a_user_without_a_name_is_never_shown_as_an_id(system: System, browser: Browser) -> None:
    user = f"ui-{uuid.uuid4().hex[:10]}"
    token = system.mint("--tenant", fresh_tenant(system), "--user", user)
    context = new_context(browser)
    try:
        page = context.new_page()
        with page.expect_response(lambda r: r.url.endswith("/v1/me")) as me:
            page.goto(f"{system.url}/#token={token}")
        assert me.value.json()["display_name"] is None
        expect(page.locator(".who")).to_contain_text("Signed in")
        expect(page.get_by_test_id("signed-in-as")).to_have_count(0)
        assert user not in page.locator(".who").inner_text()
    finally:
        context.close()


def test_a_shared_link_goes_through_sign_in_and_back_to_the_conversation(system: System, browser: Browser) -> None:
    address, password = f"ui-{uuid.uuid4().hex[:10]}@example.com", "a long enough password"
    with system.client() as anonymous:
        signed_up = anonymous.post(
            "/v1/auth/signup", json={"email": address, "password": password, "display_name": "Aisha Rahman"}
        )
        assert signed_up.status_code == 201, signed_up.text
    with system.client(signed_up.json()["access_token"]) as client:
        profile = {"company": "Acme Bank", "country": "Malaysia", "industry": "Banking", "description": ""}
        assert client.put("/v1/me/onboarding", json=profile).status_code == 200
        events = ask(client, "What is a retention schedule?", action="inquire")
        thread_id = terminal(events)["data"]["thread_id"]
    context = new_context(browser)
    try:
        page = context.new_page()
        page.goto(f"{system.url}/c/{thread_id}")  # no session in this tab
        page.wait_for_url(f"{system.url}/signin")
        page.get_by_test_id("signin-email").fill(address)
        page.get_by_test_id("signin-password").fill(password)
        page.get_by_test_id("signin-submit").click()
        page.wait_for_url(f"{system.url}/c/{thread_id}")
        expect(page.locator("[data-testid=message-assistant]")).to_have_count(1)
        expect(page.get_by_test_id("signed-in-as")).to_have_text("Aisha Rahman")
    finally:
        context.close()
