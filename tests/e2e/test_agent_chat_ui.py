"""LangChain's Agent Chat UI, built from its source (clients/agent-chat-ui) and driven in Chromium
against `/lg`, unmodified but for its web font: ask, follow-up, reload, the thread list, PalAssist
answered with approve / edit / reject / mark as resolved, regenerate, edit and resend, cancel, and
a PDF attached to a message. Screenshots go to PP_SCREENSHOT_DIR (docs/screenshots keeps a set)."""

from __future__ import annotations

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
from tests.e2e.helpers import ingest_demo_policy
from tests.e2e.test_workspace_ui import fresh_tenant

WAIT_MS = 120_000


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


def leaves(history: list[dict]) -> list[dict]:
    parents = {s["parent_checkpoint"]["checkpoint_id"] for s in history if s["parent_checkpoint"]}
    return [s for s in history if s["checkpoint"]["checkpoint_id"] not in parents]


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
        # The card resets its form whenever the interrupt it shows is read again (the stream's end,
        # the history): it is filled in once the run that asked is over and the UI has settled.
        ui.runs_done(1)
        ui.idle()

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
        # Not driven here: Edit in the card's form. The card resets the form whenever it reads the
        # interrupt again, and on a quiet machine that reset raced the test's typing (the default was
        # sent); edited values are covered at the API by tests/e2e/test_langgraph_sdk.py.

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
