"""The workspace in a real browser against `policypal up`: upload with progress, @-mentions, streamed
answers with PalReasoning, citations that open the PDF at the highlighted quote, PalAssist, Stop,
reload mid-answer, audit findings, inert untrusted text, CSP and accessibility.

Each test signs in as a user of a tenant of its own, so lists start empty and tests stay apart.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.conftest import EXAMPLES
from tests.e2e.browser import PageLog, axe_violations, new_context, screenshot
from tests.e2e.conftest import System
from tests.e2e.helpers import ask, terminal, upload, wait_ingested

ANSWER = "[data-testid=message-assistant]:not([data-live])"
LIVE = "[data-testid=message-assistant][data-live]"
WAIT_MS = 90_000


class Workspace:
    """A signed-in page plus the same user's API client."""

    def __init__(self, page: Page, log: PageLog, client: httpx.Client) -> None:
        self.page, self.log, self.client = page, log, client

    def mention(self, query: str, category: str) -> None:
        self.page.keyboard.type(f"@{query}")
        option = self.page.locator(f"[data-testid=mention-option][data-category={category}]").first
        expect(option).to_be_visible()
        self.page.keyboard.press("Enter")

    def say(self, *parts: tuple[str, str] | str) -> None:
        """Type into the composer: strings as text, (query, category) pairs as @-mentions; Enter sends."""
        self.page.get_by_test_id("chat-input").click()
        for part in parts:
            if isinstance(part, tuple):
                self.mention(*part)
            else:
                self.page.keyboard.type(part)
        self.page.keyboard.press("Enter")

    def answers(self):
        return self.page.locator(ANSWER)

    def wait_answer(self, count: int = 1):
        expect(self.answers()).to_have_count(count, timeout=WAIT_MS)
        return self.answers().nth(count - 1)

    def clean(self) -> None:
        assert not self.log.page_errors and not self.log.dialogs, (self.log.page_errors, self.log.dialogs)
        assert not [e for e in self.log.console_errors if "favicon" not in e], self.log.console_errors


def fresh_tenant(system: System) -> str:
    """A tenant of the test's own: tenant-wide knowledge-base documents that other suites upload
    to the demo tenant (the API fuzzer among them) would otherwise appear in every list."""
    with system.client(system.mint("--role", "operator")) as ops:
        created = ops.post(
            "/v1/admin/tenants", json={"name": f"Workspace {uuid.uuid4().hex[:6]}", "allowed_domains": []}
        )
        created.raise_for_status()
        return created.json()["id"]


@contextmanager
def workspace(system: System, browser: Browser, *, bypass_csp: bool = False) -> Iterator[Workspace]:
    token = system.mint("--tenant", fresh_tenant(system), "--user", f"ui-{uuid.uuid4().hex[:10]}")
    context = new_context(browser, bypass_csp=bypass_csp)
    page = context.new_page()
    page.set_default_timeout(30_000)
    log = PageLog()
    log.attach(page)
    with system.client(token) as client:
        page.goto(f"{system.url}/#token={token}")
        expect(page.locator("#docs-h")).to_be_visible()
        try:
            yield Workspace(page, log, client)
        finally:
            context.close()


def ready_document(ws: Workspace, path: Path, title: str, **fields) -> dict:
    doc = upload(ws.client, path, title, **fields)
    wait_ingested(ws.client, doc["id"])
    ws.page.reload()
    expect(ws.page.locator(f"[data-testid=doc-item][data-doc-id='{doc['id']}'][data-status=ready]")).to_be_visible()
    return doc


def test_upload_shows_moving_progress_and_lists_the_document_in_its_set_colour(
    system: System, browser: Browser
) -> None:
    with workspace(system, browser) as ws:
        page = ws.page
        expect(page.get_by_text("No documents yet")).to_be_visible()
        screenshot(page, "workspace-empty")
        page.evaluate(
            """() => {
              window.__progress = [];
              window.__indexing = [];
              new MutationObserver(() => {
                for (const el of document.querySelectorAll('[data-testid=doc-progress]'))
                  window.__progress.push(Number(el.dataset.percent));
                for (const el of document.querySelectorAll('[data-testid=doc-indexing]'))
                  window.__indexing.push(el.textContent);
              }).observe(document.body, {subtree: true, childList: true, attributes: true,
                                          attributeFilter: ['data-percent']});
            }"""
        )
        page.get_by_role("button", name="+ Upload").click()
        page.get_by_test_id("upload-input").set_input_files(EXAMPLES / "capital-requirements-guideline-2025.pdf")
        page.get_by_label("Title").fill("Capital Guideline")
        page.get_by_label("Version").fill("2025")
        page.locator("#up-type").select_option("regulatory_source")
        page.locator("#up-set").fill("Banking rules")
        page.get_by_test_id("upload-submit").click()
        # Words-first ingest makes the bar's life short: its steps are counted by the observer above.
        screenshot(page, "workspace-upload-progress")
        item = page.locator("[data-testid=doc-item]").filter(has_text="Capital Guideline")
        expect(item).to_have_attribute("data-status", "ready", timeout=WAIT_MS)
        expect(page.get_by_test_id("doc-progress")).to_have_count(0)

        # A small PDF can be searchable before the list first draws it (words-first ingest), so the bar
        # may never show on a fast machine; when it does, it ends full.
        seen = page.evaluate("window.__progress")
        assert not seen or max(seen) == 100, seen
        # Ready when searchable by words; the note goes once the vectors are stored (docs/ingest.md).
        expect(page.get_by_test_id("doc-indexing")).to_have_count(0, timeout=WAIT_MS)
        # A small PDF's vectors can be stored before the list draws it ready, as the bar above, so the
        # note is checked where it was drawn, and its wording in the page's own module in every case.
        notes = page.evaluate("window.__indexing")
        assert all(n.startswith("Searchable by words; meaning search ") for n in notes), notes
        worded = page.evaluate(
            """async () => {
              const { indexingNote } = await import('/static/workspace/ingest-progress.js');
              return [
                indexingNote({ status: 'ready', stage: 'embedding', eta_s: 12.4 }),
                indexingNote({ status: 'ready', stage: 'embedding', eta_s: 300 }),
                indexingNote({ status: 'ready', stage: 'done' }),
              ];
            }"""
        )
        assert worded == [
            "Searchable by words; meaning search ready in ~12 s",
            "Searchable by words; meaning search ready in ~5 min",
            None,
        ], worded
        sets = ws.client.get("/v1/sets").json()
        colour = next(s["color"] for s in sets if s["name"] == "Banking rules")
        assert item.get_attribute("data-set-color") == colour
        mark = item.locator(".doc-mark").evaluate("el => getComputedStyle(el).backgroundColor")
        red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
        assert mark == f"rgb({red}, {green}, {blue})"
        expect(page.locator(".set-name").filter(has_text="Banking rules")).to_be_visible()

        item.get_by_role("button", name="Delete Capital Guideline").click()
        item.get_by_role("button", name="Delete", exact=True).click()
        expect(page.locator("[data-testid=doc-item]")).to_have_count(0)
        ws.clean()


def test_inquire_streams_with_palreasoning_and_a_citation_opens_the_pdf_at_the_quote(
    system: System, browser: Browser
) -> None:
    with workspace(system, browser) as ws:
        page = ws.page
        ready_document(ws, EXAMPLES / "data-retention-policy.pdf", "Retention Policy")
        page.evaluate(
            """() => {
              window.__lengths = new Set();
              new MutationObserver(() => {
                const live = document.querySelector('[data-live] .md-blocks');
                if (live) window.__lengths.add(live.textContent.length);
              }).observe(document.body, {subtree: true, childList: true, characterData: true});
            }"""
        )
        ws.say(("Inq", "action"), ("Retention", "document"), "How long is CCTV footage kept?")
        expect(page.get_by_test_id("status-line")).to_be_visible()
        answer = ws.wait_answer()
        screenshot(page, "workspace-answer")

        steps = answer.locator(".steps li").evaluate_all("els => els.map(e => e.dataset.node)")
        order = [node for n, node in enumerate(steps) if node not in steps[:n]]
        # @Inquire was tagged: no "Clarifying intent..." step (feature spec, PalReasoning edge cases).
        assert order == ["doc_resolver", "validate_inputs", "inquire", "format_response"], steps
        # Three deltas 0.2 s apart; the last may share a frame with the final answer, whose arrival
        # ends the live view before it paints, so two growing partial texts are the proof of streaming.
        assert len(page.evaluate("[...window.__lengths]")) >= 2, "the answer did not stream token by token"
        assert "thirty days" in answer.locator(".md").inner_text()
        badges = answer.get_by_test_id("confidence-badge")
        expect(badges).to_have_count(2)
        assert {badges.nth(i).get_attribute("data-kind") for i in range(2)} == {"Inference", "Retrieval"}
        expect(answer.locator(".meta-line")).to_contain_text("offline-extractive")

        source = page.get_by_test_id("source-item").first
        expect(source).to_contain_text("Retention Policy")
        citation = answer.get_by_test_id("citation").first
        number = citation.get_attribute("data-cite")
        history = ws.client.get("/v1/conversations").json()["items"][0]
        cited = next(
            c
            for c in ws.client.get(f"/v1/chat/history/{history['thread_id']}").json()["messages"][-1]["metadata"][
                "citations"
            ]
            if str(c["n"]) == number
        )
        citation.click()
        viewer = page.get_by_test_id("pdf-viewer")
        expect(viewer).to_have_attribute("data-state", "ready", timeout=WAIT_MS)
        assert viewer.get_attribute("data-page") == str(cited["page"])
        highlights = page.get_by_test_id("pdf-highlight")
        expect(highlights.first).to_be_visible()
        canvas = viewer.locator("canvas").bounding_box()
        mark = highlights.first.bounding_box()
        assert canvas["x"] <= mark["x"] < canvas["x"] + canvas["width"]
        assert canvas["y"] <= mark["y"] < canvas["y"] + canvas["height"]
        screenshot(page, "workspace-pdf-viewer")
        page.keyboard.press("Escape")
        expect(viewer).to_have_count(0)

        source.click()  # the sources panel opens the same page
        expect(viewer).to_have_attribute("data-state", "ready", timeout=WAIT_MS)
        page.get_by_role("button", name="Close the viewer").click()
        expect(viewer).to_have_count(0)
        ws.clean()


def test_palassist_picks_a_document_then_cancel_gives_the_seed_feedback(system: System, browser: Browser) -> None:
    with workspace(system, browser) as ws:
        page = ws.page
        old = ready_document(ws, EXAMPLES / "capital-requirements-guideline-2023.pdf", "Capital 2023", version="2023")
        new = ready_document(ws, EXAMPLES / "capital-requirements-guideline-2025.pdf", "Capital 2025", version="2025")

        # Only mentions: nothing for the resolver to infer a second document from, so PalAssist asks.
        ws.say(("Compare", "action"), ("Capital 2023", "document"))
        palassist = page.get_by_test_id("palassist")
        expect(palassist).to_be_visible(timeout=WAIT_MS)
        screenshot(page, "workspace-palassist")
        palassist.locator(f"[data-option-id='{new['id']}']").click()
        palassist.get_by_role("button", name="Continue").click()
        answer = ws.wait_answer()
        expect(answer.locator(".badge.action")).to_have_text("Compare")
        sources = " ".join(s.inner_text() for s in page.get_by_test_id("source-item").all())
        assert "Capital 2023" in sources and "Capital 2025" in sources, sources
        assert old["id"] != new["id"]

        ws.say(("Compare", "action"), ("Capital 2025", "document"))
        expect(palassist).to_be_visible(timeout=WAIT_MS)
        palassist.locator("[data-option-id=cancel]").click()
        feedback = ws.wait_answer(2)
        expect(feedback).to_contain_text("Request cancelled.")
        expect(feedback).to_contain_text("Compare requires at least 2 documents")
        expect(palassist).to_have_count(0)

        # The guideline sets capital ratios but never mentions leverage: PalAssist asks before answering,
        # and "continue anyway" says what the documents never mention.
        ws.say(("Inq", "action"), ("Capital 2025", "document"), "What is the minimum leverage ratio?")
        expect(palassist).to_be_visible(timeout=WAIT_MS)
        palassist.locator("[data-option-id=continue]").click()
        hedged = ws.wait_answer(3)
        expect(hedged).to_contain_text("Nothing in your documents mentions “leverage”.")
        screenshot(page, "workspace-never-mentioned")
        ws.clean()


def test_reload_mid_answer_completes_it_and_stop_ends_a_run_for_real(system: System, browser: Browser) -> None:
    with workspace(system, browser) as ws:
        page = ws.page
        ready_document(ws, EXAMPLES / "data-retention-policy.pdf", "Retention Policy")
        question = "How long are customer account records and job applicant data retained?"
        ws.say(("Inq", "action"), ("Retention", "document"), question)
        expect(page.locator(f"{LIVE} .md-blocks")).not_to_be_empty(timeout=WAIT_MS)
        page.reload()
        answer = ws.wait_answer()
        thread_id = ws.client.get("/v1/conversations").json()["items"][0]["thread_id"]
        stored = ws.client.get(f"/v1/chat/history/{thread_id}").json()["messages"][-1]
        assert stored["role"] == "assistant" and not stored["metadata"].get("stopped")
        assert "six years" in answer.locator(".md").inner_text()
        expect(answer.get_by_test_id("citation").first).to_be_visible()
        expect(page.locator("[data-testid=conversation-item][aria-current], .item.active")).to_have_count(1)

        # A summary streams for seconds (an inquire answer here is two deltas, 0.2 s): time to press Stop.
        ws.say(("Summ", "action"), ("Retention", "document"), "Summarize the policy")
        expect(page.locator(f"{LIVE} .md-blocks")).not_to_be_empty(timeout=WAIT_MS)
        page.get_by_test_id("stop").click()
        expect(page.get_by_test_id("chat-input")).to_be_focused()  # the caret is back for the next message
        stopped = ws.wait_answer(2)
        expect(stopped.locator(".stopped-note")).to_be_visible()
        screenshot(page, "workspace-stopped")
        last = ws.client.get(f"/v1/chat/history/{thread_id}").json()["messages"][-1]
        assert last["metadata"]["stopped"] is True

        ws.say(("Inq", "action"), ("Retention", "document"), "Who owns the policy?")
        expect(ws.answers().nth(2)).to_be_visible(timeout=WAIT_MS)
        expect(ws.answers().nth(2).locator(".stopped-note")).to_have_count(0)
        ws.clean()


def test_the_mention_menu_stays_open_after_a_quick_return_to_the_editor(system: System, browser: Browser) -> None:
    """Leaving the editor closes the menu a moment later (so a click on an option lands first); typing
    "@" again before that moment (Stop, then straight back to the message) must keep the new menu."""
    with workspace(system, browser) as ws:
        page = ws.page
        page.get_by_test_id("chat-input").evaluate("editor => { editor.focus(); editor.blur(); editor.focus(); }")
        page.keyboard.type("@Inq")
        page.wait_for_timeout(400)  # past the blur's delayed close
        expect(page.locator("[data-testid=mention-option] .mention-label")).to_have_text(["Inquire"])
        page.keyboard.press("Enter")
        expect(page.locator("[data-testid=chat-input] .mention-action")).to_have_text("@Inquire")
        ws.clean()


def test_audit_of_pasted_text_groups_findings_with_severity_badges(system: System, browser: Browser) -> None:
    with workspace(system, browser) as ws:
        page = ws.page
        ready_document(ws, EXAMPLES / "data-retention-policy.pdf", "Retention Policy", doc_type="company_policy")
        ws.say(
            ("Audit", "action"),
            ("Retention", "document"),
            ": Personal data breaches must be notified to the supervisory authority within 24 hours. "
            "Job applicant data must be deleted within six months.",
        )
        answer = ws.wait_answer()
        badges = answer.get_by_test_id("severity-badge")
        expect(badges.first).to_be_visible()
        assert {b.get_attribute("data-severity") for b in badges.all()} <= {"Critical", "High", "Medium", "Low"}
        expect(answer.locator(".finding-target h4")).to_have_count(1)
        expect(answer.locator(".status-pill")).to_have_text("Major Violations")
        screenshot(page, "workspace-audit")
        ws.clean()


def test_markup_in_document_text_and_titles_renders_inert(system: System, browser: Browser, tmp_path: Path) -> None:
    hostile = tmp_path / "hostile.md"
    hostile.write_text(
        "# Visitor policy\n\n"
        'Visitors must sign in at reception <img src=x onerror="alert(1)"> before entering the building. '
        "Badges are returned at the end of each visit <script>alert(2)</script> without exception.\n"
    )
    with workspace(system, browser) as ws:
        page = ws.page
        doc = ready_document(ws, hostile, '<img src=x onerror="alert(3)">Visitor policy')
        ws.say(("Inq", "action"), ("Visitor", "document"), "What must visitors do at reception?")
        answer = ws.wait_answer()
        # A text document is shown as its PDF rendition: the markup is text printed on the page.
        page.get_by_test_id("source-item").first.click()
        expect(page.get_by_test_id("pdf-viewer")).to_have_attribute("data-state", "ready", timeout=WAIT_MS)
        page.keyboard.press("Escape")
        assert page.locator("main img, aside img, nav img").count() == 0
        assert page.locator(".md script, .md [onerror]").count() == 0
        expect(page.locator(f"[data-doc-id='{doc['id']}'] .item-title")).to_contain_text("<img src=x")
        assert answer.locator(".md").inner_text()
        page.wait_for_timeout(500)  # time for any injected handler to have fired
        assert not ws.log.dialogs and not ws.log.page_errors, (ws.log.dialogs, ws.log.page_errors)


def test_csp_keyboard_and_axe_on_every_screen(system: System, browser: Browser) -> None:
    with system.client() as client:
        for path in ("/", "/static/workspace/main.js", "/static/workspace/workspace.css"):
            csp = client.get(path).headers["content-security-policy"]
            assert "script-src 'self'" in csp and "unsafe-eval" not in csp and "unsafe-inline" not in csp

    context = new_context(browser, bypass_csp=True)
    page = context.new_page()
    page.goto(system.url)
    expect(page.get_by_label("Access token")).to_be_visible()
    screenshot(page, "workspace-sign-in")
    assert axe_violations(page) == []
    context.close()

    with workspace(system, browser, bypass_csp=True) as ws:
        page = ws.page
        assert axe_violations(page) == []
        for _ in range(40):  # keyboard only: Tab reaches the composer
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement?.dataset?.testid") == "chat-input":
                break
        else:
            raise AssertionError("Tab never reached the chat input")

        policy = ready_document(ws, EXAMPLES / "data-retention-policy.pdf", "Retention Policy")
        events = ask(ws.client, "@Compare", action="compare", tagged_doc_ids=[policy["id"]])
        assert terminal(events)["event"] == "interrupt"
        page.reload()
        page.get_by_test_id("conversation-item").first.get_by_role("button").first.click()
        expect(page.get_by_test_id("palassist")).to_be_visible()  # restored from history
        assert axe_violations(page) == []
        page.get_by_test_id("palassist").locator("[data-option-id=cancel]").click()
        ws.wait_answer()

        ws.say(("Inq", "action"), ("Retention", "document"), "How long is CCTV footage kept?")
        ws.wait_answer(2)
        assert axe_violations(page) == []
        page.get_by_test_id("citation").first.focus()
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("pdf-viewer")).to_have_attribute("data-state", "ready", timeout=WAIT_MS)
        assert axe_violations(page) == []
        page.keyboard.press("Escape")
        expect(page.get_by_test_id("pdf-viewer")).to_have_count(0)
        assert page.evaluate("document.activeElement?.dataset?.testid") == "citation"

        page.reload()  # a conversation reopens with its citations
        page.get_by_test_id("conversation-item").first.get_by_role("button").first.click()
        expect(page.get_by_test_id("source-item").first).to_be_visible()
        expect(ws.answers().last.get_by_test_id("citation").first).to_be_visible()
