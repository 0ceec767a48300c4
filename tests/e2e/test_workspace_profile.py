"""The profile shapes answers, and a new set gets the colour its owner picks, in a real browser.

Two people of one company with different onboarding answers ask the same question of the same
shared document: each reads the rule that concerns them first, and is told why.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.conftest import EXAMPLES
from tests.e2e.browser import PageLog, new_context, screenshot
from tests.e2e.conftest import System
from tests.e2e.helpers import upload, wait_ingested
from tests.e2e.test_workspace_ui import WAIT_MS, Workspace, fresh_tenant, workspace

REGIONAL_RULES = """# Regional record-keeping rules

Record retention differs by country and by sector.

In Malaysia, banks must keep customer transaction records for seven years after the account is closed.

In Singapore, insurers must keep customer policy records for five years after the policy ends.

Firms elsewhere must keep customer records for as long as the business relationship lasts.
"""
PROFILES = {
    "banker": {"company": "Acme Bank", "country": "Malaysia", "industry": "Banking", "description": ""},
    "insurer": {"company": "Lion Assurance", "country": "Singapore", "industry": "Insurance", "description": ""},
}


def at(text: str, word: str) -> int:
    """Where `word` first appears; past the end when it does not."""
    found = text.find(word)
    return found if found >= 0 else len(text) + 1


def test_two_profiles_read_the_rules_that_concern_them_first(system: System, browser: Browser, tmp_path: Path) -> None:
    tenant = fresh_tenant(system)
    tokens = {name: system.mint("--tenant", tenant, "--user", f"{name}-{uuid.uuid4().hex[:6]}") for name in PROFILES}
    rules = tmp_path / "regional-rules.md"
    rules.write_text(REGIONAL_RULES)
    for name, token in tokens.items():
        with system.client(token) as client:
            assert client.put("/v1/me/onboarding", json=PROFILES[name]).status_code == 200
    with system.client(tokens["banker"]) as client:
        doc = upload(client, rules, "Regional Rules", visibility="tenant", version="2025")
        assert wait_ingested(client, doc["id"])["status"] == "ready"

    answers = {}
    for name, token in tokens.items():
        context = new_context(browser)
        try:
            page = context.new_page()
            log = PageLog()
            log.attach(page)
            page.goto(f"{system.url}/#token={token}")
            with system.client(token) as client:
                ws = Workspace(page, log, client)
                ws.say(("Inq", "action"), ("Regional", "document"), "How long must customer records be kept?")
                answer = ws.wait_answer()
                answers[name] = answer.locator(".md").inner_text()
                screenshot(page, f"workspace-profile-{name}")
                ws.clean()
        finally:
            context.close()

    banker, insurer = answers["banker"], answers["insurer"]
    assert at(banker, "Malaysia") < at(banker, "Singapore"), banker
    assert at(insurer, "Singapore") < at(insurer, "Malaysia"), insurer
    assert "Ranked for Acme Bank: rules that name Malaysia or Banking come first." in banker
    assert "Ranked for Lion Assurance: rules that name Singapore or Insurance come first." in insurer


def test_a_new_set_takes_the_colour_picked_at_upload(system: System, browser: Browser) -> None:
    with workspace(system, browser) as ws:
        page = ws.page
        palette = ws.client.get("/v1/sets/palette").json()
        assert len(palette) == 8
        page.get_by_role("button", name="+ Upload").click()
        page.get_by_test_id("upload-input").set_input_files(EXAMPLES / "data-retention-policy.pdf")
        page.locator("#up-set").fill("Internal")
        colours = page.get_by_test_id("set-colours")
        expect(colours).to_be_visible()
        colours.get_by_label(f"Set colour {palette[3]}").check()
        screenshot(page, "workspace-set-colour")
        page.get_by_test_id("upload-submit").click()
        item = page.locator("[data-testid=doc-item]").filter(has_text="data retention policy")
        expect(item).to_have_attribute("data-status", "ready", timeout=WAIT_MS)
        sets = {s["name"]: s["color"] for s in ws.client.get("/v1/sets").json()}
        assert sets == {"Internal": palette[3]}
        assert item.get_attribute("data-set-color") == palette[3]

        # An existing set keeps its colour: no picker for its name.
        page.get_by_role("button", name="+ Upload").click()
        page.locator("#up-set").fill("Internal")
        expect(page.get_by_test_id("set-colours")).to_have_count(0)
        ws.clean()
