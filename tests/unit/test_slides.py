"""A PowerPoint deck's rendition: a page per visible slide at the slide's size, its title a heading,
its bullets by level, its tables read as rows with their headers, its speaker notes after the
slide (services/ingest/slides.py). Decks are written by python-pptx, as PowerPoint users' tools do."""

from __future__ import annotations

import io

import pymupdf
import pytest
from pptx import Presentation
from pptx.util import Inches

from services.ingest.pages import open_pages
from services.ingest.slides import slides_pdf
from shared.documents.filetype import ParseError

SCHEDULE = [
    ("Record", "Kept for", "Owner"),
    ("Invoices", "Seven years", "Finance"),
    ("CCTV footage", "30 days", "Facilities"),
]


def deck() -> bytes:
    """Three slides: bullets with a sub-level and notes, a hidden one, and a table beside a text box."""
    prs = Presentation()
    bullets = prs.slides.add_slide(prs.slide_layouts[1])
    bullets.shapes.title.text = "Access reviews"
    frame = bullets.placeholders[1].text_frame
    frame.text = "Managers review access every quarter"
    sub = frame.add_paragraph()
    sub.text, sub.level = "Privileged accounts monthly", 1
    bullets.notes_slide.notes_text_frame.text = "Reviews are recorded in the IAM tool."
    hidden = prs.slides.add_slide(prs.slide_layouts[5])
    hidden.shapes.title.text = "Draft figures"
    hidden._element.set("show", "0")
    tables = prs.slides.add_slide(prs.slide_layouts[5])
    tables.shapes.title.text = "Retention schedule"
    grid = tables.shapes.add_table(len(SCHEDULE), 3, Inches(0.5), Inches(2), Inches(9), Inches(1.5)).table
    for i, row in enumerate(SCHEDULE):
        for j, text in enumerate(row):
            grid.cell(i, j).text = text
    tables.shapes.add_textbox(Inches(0.5), Inches(1.4), Inches(9), Inches(0.5)).text_frame.text = "Approved 2024."
    out = io.BytesIO()
    prs.save(out)
    return out.getvalue()


def test_each_visible_slide_is_a_page_of_its_size_read_in_order():
    opened = open_pages(deck(), "training.pptx", max_pages=20)
    first, second = (page.text for page in opened.parsed.pages)
    assert [h for _, h in opened.parsed.pages[0].headings][0] == "Access reviews"
    assert "• Managers review access every quarter" in first and "• Privileged accounts monthly" in first
    assert first.endswith("Notes\n\nReviews are recorded in the IAM tool.")
    assert second.startswith("Retention schedule\n\nApproved 2024.")
    assert "Invoices — Kept for: Seven years · Owner: Finance." in second and "Draft figures" not in second
    with pymupdf.open("pdf", opened.rendition) as pdf:
        assert pdf.page_count == 2 and (pdf[0].rect.width, pdf[0].rect.height) == (720, 540)


def test_mupdfs_own_reader_gives_the_cells_one_under_the_other():
    with pymupdf.open(stream=deck(), filetype="pptx") as doc:
        text = "".join(page.get_text() for page in doc)
    assert "Invoices\nSeven years\nFinance" in text


@pytest.mark.parametrize(("data", "reason"), [(b"PK\x03\x04 broken", "corrupt pptx file"), (b"", "corrupt pptx file")])
def test_a_broken_deck_is_refused_with_its_reason(data: bytes, reason: str):
    with pytest.raises(ParseError, match=reason):
        slides_pdf(data)
