"""The workspace's "Regenerate" and "Edit and resend" on the last turn (the same fork as `/lg`'s
`checkpoint` runs, services/gateway/branching.py), and a file dropped on its composer."""

from __future__ import annotations

import base64

from playwright.sync_api import Browser, expect

from tests.conftest import EXAMPLES
from tests.e2e.browser import screenshot
from tests.e2e.conftest import System
from tests.e2e.test_lg_attachments import flight_log_policy
from tests.e2e.test_workspace_ui import ready_document, workspace


def test_regenerate_and_edit_and_resend_replace_the_last_turn(system: System, browser: Browser) -> None:
    with workspace(system, browser) as ws:
        page = ws.page
        doc = ready_document(ws, EXAMPLES / "data-retention-policy.pdf", "Retention Policy")
        ws.say(("Inq", "action"), ("Retention", "document"), "How long is CCTV footage kept?")
        first = ws.wait_answer()
        first_id = first.get_attribute("data-message-id")

        first.get_by_role("button", name="Regenerate").click()
        again = ws.wait_answer()
        expect(again).not_to_have_attribute("data-message-id", first_id)
        assert "thirty days" in again.inner_text()
        expect(page.locator(".msg.user")).to_have_count(1)

        page.get_by_role("button", name="Edit and resend").click()
        page.get_by_label("Edit your message").fill("How long are job applicant records kept?")
        page.get_by_role("button", name="Resend").click()
        edited = ws.wait_answer()
        expect(edited).to_contain_text("twelve months")
        screenshot(page, "workspace-edit-and-resend")
        expect(page.locator(".msg.user")).to_have_count(1)
        expect(page.locator(".msg.user .bubble")).to_have_text("How long are job applicant records kept?")

        # After a reload the conversation is the current branch only, the document still tagged.
        page.reload()
        expect(page.locator(".msg.user .bubble")).to_have_text("How long are job applicant records kept?")
        expect(ws.answers()).to_have_count(1)
        thread_id = page.evaluate("location.pathname.split('/c/')[1]")
        history = ws.client.get(f"/v1/chat/history/{thread_id}").json()
        assert [m["role"] for m in history["messages"]] == ["user", "assistant"]
        assert history["messages"][0]["metadata"]["tagged_doc_ids"] == [doc["id"]]
        ws.clean()


def test_a_file_dropped_on_the_composer_is_uploaded_tagged_and_waited_for(system: System, browser: Browser) -> None:
    with workspace(system, browser) as ws:
        page = ws.page
        pdf = base64.b64encode(flight_log_policy()).decode()
        page.evaluate(
            """(data) => {
              const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
              const transfer = new DataTransfer();
              transfer.items.add(new File([bytes], "flight-logs.pdf", {type: "application/pdf"}));
              const composer = document.querySelector(".composer");
              const init = {dataTransfer: transfer, bubbles: true, cancelable: true};
              composer.dispatchEvent(new DragEvent("dragover", init));
              composer.dispatchEvent(new DragEvent("drop", init));
            }""",
            pdf,
        )
        expect(page.get_by_test_id("attachment")).to_have_attribute("data-ready", "true")
        ws.say("How long are drone flight logs kept?")
        answer = ws.wait_answer()
        expect(answer).to_contain_text("seven years")
        # (Ingest of a one-page file usually ends while the question is typed: then there is nothing to wait for.)
        screenshot(page, "workspace-attachment")
        page.wait_for_url("**/c/**")
        thread_id = page.evaluate("location.pathname.split('/c/')[1]")
        response = ws.client.get(f"/v1/chat/history/{thread_id}")
        assert response.status_code == 200, (thread_id, response.text[:300])
        asked = response.json()["messages"][0]
        assert len(asked["metadata"]["tagged_doc_ids"]) == 1
        ws.clean()
