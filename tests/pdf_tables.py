"""A policy page with a ruled table of words, drawn the way a word processor exports one: a
heading, a paragraph, cells framed by stroked lines, text wrapped inside its cell, a paragraph after;
and the same policy as the Word document it was written in, a Markdown article, a web page and a
slide."""

from __future__ import annotations

import io

import docx
import pymupdf
from pptx import Presentation
from pptx.util import Inches

CLASSIFICATION = [
    ("Level", "Examples", "Handling requirements"),
    ("Public", "Press releases, published prices", "No restrictions on sharing."),
    ("Internal", "Org charts, internal wiki pages", "Share only with employees and contractors under NDA."),
    (
        "Confidential",
        "Customer contracts, payroll records, source code",
        "Encrypt at rest and in transit; access on a need-to-know basis approved by the data owner.",
    ),
    (
        "Restricted",
        "Cardholder data, health records, encryption keys",
        "Stored only in the PCI enclave. Access is logged and reviewed quarterly by the CISO.",
    ),
]
COLUMNS = (60.0, 160.0, 330.0, 550.0)
ROW_HEIGHT = 44.0
TABLE_TOP = 130.0


def ruled_table(page: pymupdf.Page, rows: list[tuple[str, ...]], top: float, columns=COLUMNS) -> float:
    """Draws the rows in ruled cells from `top`; returns the table's bottom."""
    bottom = top + ROW_HEIGHT * len(rows)
    for x in columns:
        page.draw_line((x, top), (x, bottom), width=0.75)
    for i, cells in enumerate(rows):
        y = top + ROW_HEIGHT * i
        page.draw_line((columns[0], y), (columns[-1], y), width=0.75)
        for cell, (x0, x1) in zip(cells, zip(columns, columns[1:], strict=False), strict=False):
            box = pymupdf.Rect(x0 + 4, y + 4, x1 - 4, y + ROW_HEIGHT - 2)
            page.insert_textbox(box, cell, fontsize=9, fontname="hebo" if i == 0 else "helv")
    page.draw_line((columns[0], bottom), (columns[-1], bottom), width=0.75)
    return bottom


def policy_pdf(rows: list[tuple[str, ...]] = CLASSIFICATION) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((60, 70), "4. Data classification", fontsize=14, fontname="hebo")
    page.insert_textbox(
        pymupdf.Rect(60, 85, 550, 120),
        "Every information asset is assigned one of the levels below by its owner.",
        fontsize=10,
    )
    bottom = ruled_table(page, rows, TABLE_TOP)
    page.insert_textbox(
        pymupdf.Rect(60, bottom + 20, 550, bottom + 60),
        "Questions about classification go to the Data Protection Officer.",
        fontsize=10,
    )
    return doc.tobytes()


def policy_docx(
    rows: list[tuple[str, ...]] = CLASSIFICATION,
    *,
    heading: str = "4. Data classification",
    intro: str = "Every information asset is assigned one of the levels below by its owner.",
    steps: tuple[str, ...] = (),
    outro: str = "Questions about classification go to the Data Protection Officer.",
) -> bytes:
    """The policy as Word saves it: a heading, a paragraph, numbered steps, the table in Word's
    "Table Grid" style, a closing paragraph."""
    document = docx.Document()
    document.add_heading(heading, 1)
    document.add_paragraph(intro)
    for step in steps:
        document.add_paragraph(step, style="List Number")
    table = document.add_table(rows=len(rows), cols=len(rows[0]))
    table.style = "Table Grid"
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            table.cell(r, c).text = text
    document.add_paragraph(outro)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def policy_markdown(rows: list[tuple[str, ...]] = CLASSIFICATION) -> bytes:
    """The policy as a knowledge base keeps it in Markdown: a heading, a paragraph, a pipe table."""
    table = [f"| {' | '.join(rows[0])} |", f"|{'---|' * len(rows[0])}"] + [f"| {' | '.join(r)} |" for r in rows[1:]]
    text = "# 4. Data classification\n\nEvery information asset is assigned one of the levels below by its owner.\n\n"
    return (text + "\n".join(table) + "\n").encode()


def policy_html(rows: list[tuple[str, ...]] = CLASSIFICATION) -> bytes:
    """The policy as a web page publishes it, its table without borders."""
    cells = "".join(
        "<tr>" + "".join(f"<{'th' if i == 0 else 'td'}>{c}</{'th' if i == 0 else 'td'}>" for c in r) + "</tr>"
        for i, r in enumerate(rows)
    )
    return (
        "<!DOCTYPE html><html><head><title>Classification</title></head><body><h1>4. Data classification</h1>"
        f"<p>Every information asset is assigned one of the levels below by its owner.</p><table>{cells}</table>"
        "</body></html>"
    ).encode()


def policy_pptx(rows: list[tuple[str, ...]] = CLASSIFICATION) -> bytes:
    """The policy as a training deck shows it: a slide titled by the section, the table under it."""
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "4. Data classification"
    grid = slide.shapes.add_table(len(rows), len(rows[0]), Inches(0.4), Inches(1.6), Inches(9.2), Inches(3)).table
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            grid.cell(r, c).text = text
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()
