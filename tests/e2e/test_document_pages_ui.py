"""A Word document in the browser: uploaded, cited in an answer, and its citation opened in the
viewer on the PDF rendition's page with the quoted passage highlighted; the download stays .docx."""

from __future__ import annotations

import io

import docx
from playwright.sync_api import Browser, expect

from tests.e2e.browser import screenshot
from tests.e2e.conftest import System
from tests.e2e.helpers import wait_ingested
from tests.e2e.test_workspace_ui import WAIT_MS, workspace

DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
CLAUSES = [
    "Application forms of unsuccessful candidates are deleted after six months.",
    "References collected during recruitment are kept with the employee file.",
    "Payroll records are kept for seven years after the end of employment.",
]


def recruitment_policy() -> bytes:
    """Several pages of a real .docx; the answer to the question is in its opening section."""
    document = docx.Document()
    document.add_heading("Recruitment records policy", level=1)
    document.add_heading("Interview notes", level=2)
    document.add_paragraph("Interview feedback forms are kept for nine months after the recruitment decision.")
    document.add_heading("Other records", level=2)
    for n in range(70):
        document.add_paragraph(f"Clause {n + 1}. {CLAUSES[n % 3]} Managers confirm this in the quarterly review.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_a_word_documents_citation_opens_its_page_with_the_quote_highlighted(system: System, browser: Browser):
    data = recruitment_policy()
    with workspace(system, browser) as ws:
        page = ws.page
        response = ws.client.post(
            "/v1/documents",
            files={"file": ("recruitment.docx", data, DOCX_MIME)},
            data={"title": "Recruitment Records", "doc_type": "company_policy"},
        )
        assert response.status_code == 202, response.text
        document = wait_ingested(ws.client, response.json()["id"])
        assert document["status"] == "ready" and document["mime"] == DOCX_MIME and document["page_count"] >= 2
        page.reload()
        item = page.locator(f"[data-testid=doc-item][data-doc-id='{document['id']}']")
        expect(item).to_have_attribute("data-status", "ready", timeout=WAIT_MS)

        ws.say(("Inq", "action"), ("Recruitment", "document"), "How long are interview feedback forms kept?")
        answer = ws.wait_answer()
        assert "nine months" in answer.locator(".md").inner_text()
        history = ws.client.get("/v1/conversations").json()["items"][0]
        message = ws.client.get(f"/v1/chat/history/{history['thread_id']}").json()["messages"][-1]
        cited = next(c for c in message["metadata"]["citations"] if "nine months" in (c.get("quote") or ""))
        assert cited["page"] == 1  # the rendition's page that holds the clause

        answer.locator(f"[data-testid=citation][data-cite='{cited['n']}']").first.click()
        viewer = page.get_by_test_id("pdf-viewer")
        expect(viewer).to_have_attribute("data-state", "ready", timeout=WAIT_MS)
        assert viewer.get_attribute("data-page") == str(cited["page"])
        highlight = page.get_by_test_id("pdf-highlight").first
        expect(highlight).to_be_visible()
        canvas, mark = viewer.locator("canvas").bounding_box(), highlight.bounding_box()
        assert canvas["x"] <= mark["x"] < canvas["x"] + canvas["width"]
        assert canvas["y"] <= mark["y"] < canvas["y"] + canvas["height"]
        screenshot(page, "workspace-docx-viewer")
        page.keyboard.press("Escape")
        expect(viewer).to_have_count(0)

        original = ws.client.get(f"/v1/documents/{document['id']}/file")
        assert original.content == data  # the download is the Word file itself
        ws.clean()
