"""LangChain's Agent Chat UI, built from its source (clients/agent-chat-ui) and driven in Chromium
against `/lg`, unmodified but for its web font: ask, follow-up, reload, the thread list, PalAssist
answered with approve / edit (a document choice) / reject / mark as resolved, regenerate, edit and resend, cancel, and
a PDF attached to a message. Screenshots go to PP_SCREENSHOT_DIR (docs/screenshots keeps a set)."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.conftest import EXAMPLES
from tests.e2e.agent_chat_ui import served
from tests.e2e.browser import PageLog, new_context, screenshot
from tests.e2e.conftest import System
from tests.e2e.helpers import ingest_demo_policy, upload, wait_ingested
from tests.e2e.test_workspace_ui import fresh_tenant

WAIT_MS = 120_000

# Every fetch of the page, in order, ended when its body has been read in full: what `settled` waits on.
FETCH_LOG = """
(() => {
  const log = (window.__ppFetches = []);
  let seq = 0;
  const original = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input.url ?? String(input);
    const entry = { url, method: (init?.method ?? input.method ?? "GET").toUpperCase(), start: ++seq, end: null };
    log.push(entry);
    try {
      const response = await original(input, init);
      response.clone().arrayBuffer().catch(() => null).finally(() => { entry.end = ++seq; });
      return response;
    } catch (error) {
      entry.end = ++seq;
      throw error;
    }
  };
})();
"""

# The UI has read all it will read after a run: nothing in flight; the history was read after the last
# run's stream ended; the thread list was read after the last thread was created (the UI re-reads it
# 4 s after a new thread id). Each of those reads renders the thread again, and Agent Chat UI resets
# the PalAssist card's form whenever it renders it (its interrupt is a new object on each render).
SETTLED = """
() => {
  const log = window.__ppFetches ?? [];
  if (log.some((f) => f.end === null)) return false;
  const path = (f) => new URL(f.url, location.href).pathname;
  const last = (pick) => Math.max(0, ...log.filter(pick).map((f) => f.end));
  const runs = last((f) => /\\/runs(\\/stream)?$/.test(path(f)));
  const created = last((f) => f.method === "POST" && /\\/threads$/.test(path(f)));
  const read = (pattern, after) => log.some((f) => pattern.test(path(f)) && f.start > after);
  return (!runs || read(/\\/history$/, runs)) && (!created || read(/\\/threads\\/search$/, created));
}
"""


class ChatUi:
    def __init__(self, page: Page, api: httpx.Client) -> None:
        self.page, self.api = page, api

    @property
    def box(self):
        return self.page.get_by_placeholder("Type your message...")

    def send(self, text: str) -> None:
        self.box.fill(text)
        self.box.press("Enter")

    def idle(self) -> None:
        """The run is over: the composer's Send is back (Cancel shows while a run streams)."""
        expect(self.page.get_by_role("button", name="Cancel")).to_have_count(0, timeout=WAIT_MS)

    @property
    def thread_id(self) -> str:
        return parse_qs(urlparse(self.page.url).query)["threadId"][0]

    def runs_done(self, count: int) -> None:
        """Wait until the thread has had `count` runs and none is going: the UI may drop its Cancel
        button before the run it started has ended (a resume's card closes at once)."""
        deadline = time.monotonic() + WAIT_MS / 1000
        runs: list[dict] = []
        while time.monotonic() < deadline:
            runs = self.api.get(f"/lg/threads/{self.thread_id}/runs", params={"limit": 100}).json()
            if len(runs) >= count and all(r["status"] not in ("pending", "running") for r in runs):
                return
            time.sleep(0.5)
        raise AssertionError(f"no {count} finished runs on the thread: {runs}")

    def settled(self) -> None:
        """The UI has made every read that follows the last run, and rendered what they brought (two
        animation frames after the last one): a form filled in now is not reset under the test."""
        self.page.wait_for_function(SETTLED, polling="raf", timeout=WAIT_MS)
        self.page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        self.page.wait_for_function(SETTLED, polling="raf", timeout=WAIT_MS)

    def state(self) -> dict:
        return self.api.get(f"/lg/threads/{self.thread_id}/state").json()

    def history(self) -> list[dict]:
        return self.api.post(f"/lg/threads/{self.thread_id}/history", json={"limit": 500}).json()


@contextmanager
def chat_ui(system: System, browser: Browser) -> Iterator[ChatUi]:
    token = system.mint("--tenant", fresh_tenant(system), "--user", f"acu-{uuid.uuid4().hex[:10]}")
    with system.client(token) as api:
        ingest_demo_policy(api)
        with served(f"{system.url}/lg", token) as ui:
            context = new_context(browser)
            context.add_init_script(FETCH_LOG)
            page = context.new_page()
            page.set_default_timeout(30_000)
            log = PageLog()
            log.attach(page)
            page.goto(f"{ui}/?apiUrl={ui}/api&assistantId=policypal&chatHistoryOpen=true")
            try:
                yield ChatUi(page, api)
            finally:
                context.close()
            assert not log.page_errors, log.page_errors


def test_agent_chat_ui_chats_branches_and_cancels_against_lg(system: System, browser: Browser) -> None:
    with chat_ui(system, browser) as ui:
        page = ui.page
        ui.send("How long are job applicant records kept?")
        expect(page.get_by_role("button", name="Cancel")).to_be_visible()  # streaming
        expect(page.get_by_text("twelve months").first).to_be_visible(timeout=WAIT_MS)
        ui.idle()
        screenshot(page, "agent-chat-ui-answer")

        ui.send("Who may access personnel files?")
        ui.idle()
        assert [m["type"] for m in ui.state()["values"]["messages"]] == ["human", "ai", "human", "ai"]

        # Reload: the thread comes back from /lg (threadId is in the URL), and it is in the thread list.
        page.reload()
        expect(page.get_by_text("How long are job applicant records kept?").first).to_be_visible()
        expect(page.get_by_text("Who may access personnel files?").first).to_be_visible()
        screenshot(page, "agent-chat-ui-reload-thread-list")

        # Regenerate the last answer: a new branch beside the old one, with a switcher.
        old_answer = ui.state()["values"]["messages"][-1]
        page.get_by_text(old_answer["content"][:40]).first.hover()
        page.get_by_role("button", name="Refresh").last.click()
        ui.idle()
        expect(page.get_by_text(re.compile(r"^\s*2 / 2\s*$")).first).to_be_visible(timeout=WAIT_MS)
        new_answer = ui.state()["values"]["messages"][-1]
        assert new_answer["id"] != old_answer["id"] and len(ui.state()["values"]["messages"]) == 4
        screenshot(page, "agent-chat-ui-regenerated")

        # Edit and resend the second question: the thread forks before it.
        page.get_by_text("Who may access personnel files?").first.hover()
        page.get_by_role("button", name="Edit").last.click()
        editor = page.locator("textarea").first
        editor.fill("How long are payroll records kept?")
        page.get_by_role("button", name="Submit").last.click()
        ui.idle()
        messages = ui.state()["values"]["messages"]
        assert [m["content"] for m in messages if m["type"] == "human"] == [
            "How long are job applicant records kept?",
            "How long are payroll records kept?",
        ]
        answers = {m["id"] for st in ui.history() for m in st["values"]["messages"] if m["type"] == "ai"}
        assert {old_answer["id"], new_answer["id"], messages[-1]["id"]} <= answers  # every branch kept
        screenshot(page, "agent-chat-ui-edited")


def test_agent_chat_ui_answers_palassist_and_attaches_a_pdf(system: System, browser: Browser) -> None:
    with chat_ui(system, browser) as ui:
        page = ui.page
        ui.send("Summarize and audit the retention policy")
        expect(page.get_by_role("button", name="Mark as Resolved")).to_be_visible(timeout=WAIT_MS)
        screenshot(page, "agent-chat-ui-palassist")
        page.get_by_role("button", name="Approve").first.click()
        ui.idle()
        assert ui.state()["values"]["messages"][-1]["response_metadata"]["action"] == "summarize"

        ui.send("Summarize and audit the retention policy")
        expect(page.get_by_role("button", name="Mark as Resolved")).to_be_visible(timeout=WAIT_MS)
        page.get_by_role("button", name="Mark as Resolved").click()
        ui.idle()
        assert ui.state()["values"]["messages"][-1]["response_metadata"]["cancelled"] is True
        assert ui.api.get(f"/lg/threads/{ui.thread_id}").json()["status"] == "idle"

        page.locator("#file-input").set_input_files(str(Path(EXAMPLES) / "aml-policy.pdf"))
        ui.send("What does this policy say about customer due diligence?")
        ui.idle()
        last = ui.state()["values"]["messages"]
        assert last[-2]["additional_kwargs"]["tagged_doc_ids"] and last[-1]["additional_kwargs"]["citations"]
        screenshot(page, "agent-chat-ui-attachment")

        # Cancel stops the stream in the browser; the thread takes the next message all the same.
        ui.send("How long are job applicant records kept?")
        page.get_by_role("button", name="Cancel").click()
        ui.idle()
        ui.send("Who may access personnel files?")
        expect(page.get_by_text("need-to-know").first).to_be_visible(timeout=WAIT_MS)
        ui.idle()
        assert ui.state()["values"]["messages"][-2]["content"] == "Who may access personnel files?"
        screenshot(page, "agent-chat-ui-after-cancel")


def test_agent_chat_ui_rejects_palassist_then_opens_a_thread_from_the_list(system: System, browser: Browser) -> None:
    question = "Summarize and audit the retention policy"
    with chat_ui(system, browser) as ui:
        page = ui.page
        ui.send(question)
        expect(page.get_by_role("button", name="Mark as Resolved")).to_be_visible(timeout=WAIT_MS)
        asked = ui.thread_id
        # The card resets its form whenever it is rendered again: it is filled in once the run that
        # asked is over and the UI has settled.
        ui.runs_done(1)
        ui.idle()
        ui.settled()

        # Reject with a reason: the question closes as a cancel and the thread is free.
        reason = page.get_by_placeholder("Share feedback with the agent...")
        reason.fill("Not now, thanks")
        expect(reason).to_have_value("Not now, thanks")
        page.get_by_role("button", name="Submit rejection").click()
        ui.runs_done(2)
        expect(page.get_by_text("Request cancelled.").first).to_be_visible(timeout=WAIT_MS)
        assert ui.state()["values"]["messages"][-1]["response_metadata"]["cancelled"] is True
        assert ui.api.get(f"/lg/threads/{asked}").json()["status"] == "idle"

        screenshot(page, "agent-chat-ui-palassist-rejected")

        # A second thread, then the first one again from the thread list.
        page.get_by_role("button", name="New thread").click()
        ui.send("How long are job applicant records kept?")
        expect(page.get_by_text("twelve months").first).to_be_visible(timeout=WAIT_MS)
        ui.idle()
        assert ui.thread_id != asked
        page.reload()  # the list is read on load
        page.get_by_role("button", name=question).first.click()
        expect(page).to_have_url(re.compile(f"threadId={asked}"))
        expect(page.get_by_text(question).first).to_be_visible()
        assert ui.thread_id == asked


def test_agent_chat_ui_edits_a_document_choice(system: System, browser: Browser) -> None:
    """PalAssist asks which of two like-named documents; the card's Edit form names the other one than
    the offered default, as a JSON list in a string (the form's text), and that is the one answered."""
    with chat_ui(system, browser) as ui:
        page = ui.page
        titles = ("Meridian Retention Schedule", "Meridian Travel Rules")
        twins = [upload(ui.api, Path(EXAMPLES) / "storage-limitation-regulation.pdf", title)["id"] for title in titles]
        for twin in twins:
            wait_ingested(ui.api, twin)
        ui.send("Summarize the meridian document")
        expect(page.get_by_role("button", name="Mark as Resolved")).to_be_visible(timeout=WAIT_MS)
        asked = ui.state()["interrupts"][0]["value"]
        assert asked["interrupt_type"] == "doc_choice" and {o["id"] for o in asked["options"]} >= set(twins)
        default = asked["action_requests"][0]["args"]["document_ids"]
        other = next(t for t in twins if t not in default)
        ui.runs_done(1)
        ui.idle()
        ui.settled()

        choice = page.locator("textarea:not([placeholder])").first
        expect(choice).to_have_value(json.dumps(default))
        choice.fill(json.dumps([other]))
        ui.settled()
        expect(choice).to_have_value(json.dumps([other]))  # the form still holds the edit
        screenshot(page, "agent-chat-ui-palassist-edited")
        page.get_by_role("button", name="Submit", exact=True).click()
        ui.runs_done(2)
        ui.idle()

        state = ui.state()
        answer = state["values"]["messages"][-1]
        assert not state["interrupts"] and answer["response_metadata"]["action"] == "summarize", state
        assert {c["document_id"] for c in answer["additional_kwargs"]["citations"]} == {other}
        expect(page.get_by_text(answer["content"][:40]).first).to_be_visible()
