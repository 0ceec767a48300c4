"""A policy's ruled table in the browser: "How must confidential data be handled?" is answered by the
table's "Confidential" row with its column headers, and opening the citation highlights that row's
label and cells on the PDF page, and nothing outside the row (issue #27, tables)."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from tests.e2e.browser import screenshot
from tests.e2e.conftest import System
from tests.e2e.helpers import wait_ingested
from tests.e2e.test_workspace_ui import WAIT_MS, workspace
from tests.pdf_tables import COLUMNS, ROW_HEIGHT, TABLE_TOP, policy_pdf

PAGE_HEIGHT_PT = 792.0
CONFIDENTIAL_ROW = 3  # the header is row 0


def test_a_table_rows_citation_lights_up_its_label_and_cells(system: System, browser: Browser):
    with workspace(system, browser) as ws:
        page = ws.page
        response = ws.client.post(
            "/v1/documents",
            files={"file": ("classification.pdf", policy_pdf(), "application/pdf")},
            data={"title": "Data Classification Standard", "doc_type": "company_policy"},
        )
        assert response.status_code == 202, response.text
        document = wait_ingested(ws.client, response.json()["id"])
        assert document["status"] == "ready"
        page.reload()
        item = page.locator(f"[data-testid=doc-item][data-doc-id='{document['id']}']")
        expect(item).to_have_attribute("data-status", "ready", timeout=WAIT_MS)

        ws.say(("Inq", "action"), ("Classification", "document"), "How must confidential data be handled?")
        answer = ws.wait_answer()
        said = answer.locator(".md").inner_text()
        assert "Confidential" in said and "Handling requirements" in said and "Encrypt at rest" in said, said
        history = ws.client.get("/v1/conversations").json()["items"][0]
        message = ws.client.get(f"/v1/chat/history/{history['thread_id']}").json()["messages"][-1]
        cited = next(c for c in message["metadata"]["citations"] if (c.get("quote") or "").startswith("Confidential"))
        assert cited["page"] == 1

        answer.locator(f"[data-testid=citation][data-cite='{cited['n']}']").first.click()
        viewer = page.get_by_test_id("pdf-viewer")
        expect(viewer).to_have_attribute("data-state", "ready", timeout=WAIT_MS)
        highlights = page.get_by_test_id("pdf-highlight")
        expect(highlights.first).to_be_visible()
        canvas = viewer.locator("canvas").bounding_box()
        scale = canvas["height"] / PAGE_HEIGHT_PT
        row_top = TABLE_TOP + ROW_HEIGHT * CONFIDENTIAL_ROW
        marks = [highlights.nth(i).bounding_box() for i in range(highlights.count())]
        for mark in marks:  # every highlight lies in the Confidential row
            centre = (mark["y"] + mark["height"] / 2 - canvas["y"]) / scale
            assert row_top <= centre <= row_top + ROW_HEIGHT, (centre, row_top, marks)
        lefts = {next(i for i, x in enumerate(COLUMNS[1:]) if (m["x"] - canvas["x"]) / scale < x) for m in marks}
        assert lefts == {0, 1, 2}, marks  # the label, the examples and the handling cell light up
        screenshot(page, "workspace-table-row-viewer")
        page.keyboard.press("Escape")
        ws.clean()
