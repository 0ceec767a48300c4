"""Issue #27, short documents, in a real browser against `policypal up`: a tagged document one
search reads whole is answered from it, marked low and saying so, without PalAssist's "I couldn't
find strong matches" (services/actions/whole_read.py)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect

from examples.eval.make_eval_pdfs import HERE as EVAL_DIR
from examples.eval.make_eval_pdfs import build_pdf
from tests.e2e.browser import screenshot
from tests.e2e.conftest import System
from tests.e2e.test_workspace_ui import ready_document, workspace


def test_a_short_tagged_document_is_answered_low_without_palassist(
    system: System, browser: Browser, tmp_path: Path
) -> None:
    """The MIT licence is one page, so the search reads it whole: a question in a reader's words that
    matches it poorly is answered from it at once, marked low and saying so (issue #27), not asked
    "I couldn't find strong matches" (services/actions/whole_read.py)."""
    pdf = tmp_path / "mit.pdf"
    build_pdf(EVAL_DIR / "texts" / "mit.txt", pdf, "MIT License")
    with workspace(system, browser) as ws:
        page = ws.page
        ready_document(ws, pdf, "MIT License")
        ws.say(("MIT", "document"), "Is it fine to bundle this in a paid app and sell it?")
        answer = ws.wait_answer()
        expect(answer).to_contain_text("The tagged document does not seem to answer this directly")
        expect(answer).to_contain_text("sell copies of the Software")
        expect(answer).to_contain_text("Only the tagged document was searched")
        retrieval = answer.locator("[data-testid=confidence-badge][data-kind=Retrieval]")
        expect(retrieval).to_have_attribute("data-tier", "low")
        expect(page.get_by_test_id("palassist")).to_have_count(0)
        screenshot(page, "workspace-read-whole")
        ws.clean()
