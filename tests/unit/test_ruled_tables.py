"""Issue #27, tables: a ruled table of words (a policy's classification levels) is read as rows,
each with its label and column headers, where it stands on the page (services/ingest/ruled_tables.py).

The tables are drawn as a word processor exports them (tests/pdf_tables.py) and parsed by the real
parser; the rows are read back as the answers, the benchmarks and the viewer read them.
"""

from __future__ import annotations

import pymupdf

from bench.answer_metrics import quote_on_page
from examples.eval.eval_set import normalise
from services.ingest.parse import parse_document
from services.ingest.ruled_tables import Cell, header_rows, row_sentences, word_tables
from shared.text.sentences import split_sentences
from shared.text.tables import printed_parts, row_parts, word_row_parts
from tests.pdf_tables import CLASSIFICATION, ROW_HEIGHT, policy_pdf, ruled_table

CONFIDENTIAL = (
    "Confidential — Examples: Customer contracts, payroll records, source code · Handling requirements: "
    "Encrypt at rest and in transit; access on a need-to-know basis approved by the data owner."
)


def parsed_text(pdf: bytes) -> str:
    (page,) = parse_document(pdf, "policy.pdf", max_pages=5).pages
    return page.text


def test_a_row_is_one_sentence_with_its_label_and_headers_in_place_of_its_cells():
    text = parsed_text(policy_pdf())
    paragraphs = text.split("\n\n")
    assert CONFIDENTIAL in paragraphs, text
    # In place: after the paragraph that introduces the table, before the one that follows it; the
    # cells' own blocks (a handling cell without its level, the header line) are gone.
    assert paragraphs.index(CONFIDENTIAL) > paragraphs.index(
        "Every information asset is assigned one of the levels below by its owner."
    )
    assert paragraphs[-1] == "Questions about classification go to the Data Protection Officer."
    handling = "Encrypt at rest and in transit; access on a need-to-know basis approved by the data owner."
    assert handling not in paragraphs
    assert not any(p.startswith("Level") for p in paragraphs), text
    # A cell that ends its own sentence is not given a second full stop.
    assert "sharing.." not in text


def test_a_row_of_several_sentences_stays_one_piece():
    sentences = split_sentences(parsed_text(policy_pdf()))
    restricted = [s for s in sentences if s.startswith("Restricted")]
    assert restricted == [
        "Restricted — Examples: Cardholder data, health records, encryption keys · Handling requirements: "
        "Stored only in the PCI enclave. Access is logged and reviewed quarterly by the CISO."
    ], sentences


def test_a_ruled_table_of_figures_is_left_to_the_figure_rows():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    ruled_table(page, [("Fee", "2023", "2024"), ("Annual", "1,200", "1,300"), ("Late", "50", "60")], 100)
    assert word_tables(page) == []


def test_a_page_without_vertical_rules_is_not_searched_for_tables():
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((60, 70), "Public  Press releases  No restrictions on sharing.", fontsize=10)
    page.draw_line((60, 80), (550, 80))
    assert word_tables(page) == []


def cells(*row: str | None, left: float = 60.0, width: float = 100.0) -> list[Cell]:
    """A row of cells side by side; None is a cell spanned from the row above (no cell of this row)."""
    return [Cell(left + i * width, left + (i + 1) * width, text) for i, text in enumerate(row) if text is not None]


def sentences_of(rows: list[list[Cell]]) -> list[str]:
    heads = header_rows(rows)
    return row_sentences(rows[heads:], rows[:heads])


def test_a_spanned_label_is_lent_by_the_row_above_and_a_lone_first_cell_names_a_group():
    rows = [
        cells("Record", "Retention period", "Owner"),
        [Cell(60, 360, "Finance")],
        cells("Invoices", "7 years after the fiscal year ends", "Finance"),
        cells(None, "10 years where a tax audit is open", "Legal"),
    ]
    assert sentences_of(rows) == [
        "Finance: Invoices — Retention period: 7 years after the fiscal year ends · Owner: Finance.",
        "Finance: Invoices — Retention period: 10 years where a tax audit is open · Owner: Legal.",
    ]


def test_a_header_spanning_columns_stands_over_each_of_them():
    rows = [
        [Cell(60, 160, ""), Cell(160, 460, "Potential impact")],
        cells("Objective", "Low", "Moderate", "High"),
        cells("Availability", "Limited adverse effect.", "Serious adverse effect.", "Severe adverse effect."),
    ]
    assert sentences_of(rows) == [
        "Availability — Potential impact Low: Limited adverse effect. · Potential impact Moderate: Serious adverse "
        "effect. · Potential impact High: Severe adverse effect."
    ]


def test_a_table_without_a_header_row_gives_its_cells_alone():
    rows = [cells("Scope", "All employees and contractors."), cells("Owner", "The CISO approves changes.")]
    assert sentences_of(rows) == ["Scope — All employees and contractors.", "Owner — The CISO approves changes."]


def test_a_row_of_words_is_told_from_prose_with_a_dash():
    assert word_row_parts(CONFIDENTIAL) == [
        "Confidential",
        "Customer contracts, payroll records, source code",
        "Encrypt at rest and in transit; access on a need-to-know basis approved by the data owner",
    ]
    assert word_row_parts("Public — Handling requirements: No restrictions on sharing.") == [
        "Public",
        "No restrictions on sharing",
    ]
    assert word_row_parts("The policy — which the board approved in 2023 — applies to all staff.") is None
    figures = "Investing activities: Purchases — Year Ended 2018: (1,577) · Year Ended 2017: (1,213)."
    assert word_row_parts(figures) is None and printed_parts(figures) == row_parts(figures)


def test_a_quoted_row_of_words_is_on_its_page_by_its_label_and_cells():
    (page,) = pymupdf.open(stream=policy_pdf(), filetype="pdf")
    printed = normalise(page.get_text())
    assert quote_on_page(CONFIDENTIAL, printed)
    assert quote_on_page(CONFIDENTIAL.split(" · ")[0] + " · Handling requirements: Encrypt at rest …", printed)
    assert not quote_on_page(CONFIDENTIAL.replace("data owner", "board"), printed)


def test_a_table_continued_on_the_next_page_is_read_under_the_header_of_the_page_before():
    """Word and MuPDF repeat no header row: the rows on the next page have none of their own."""
    doc = pymupdf.open()
    first = doc.new_page(width=612, height=792)
    bottom = ruled_table(first, CLASSIFICATION[:3], 792 - 60 - ROW_HEIGHT * 3)
    assert bottom >= 0.8 * 792
    ruled_table(doc.new_page(width=612, height=792), CLASSIFICATION[3:], 60)
    pages = parse_document(doc.tobytes(), "continued.pdf", max_pages=5).pages
    assert "Confidential — Examples: Customer contracts, payroll records, source code · Handling requirements:" in (
        pages[1].text
    )


def test_a_table_lower_on_the_next_page_is_not_read_as_continued():
    doc = pymupdf.open()
    ruled_table(doc.new_page(width=612, height=792), CLASSIFICATION[:3], 792 - 60 - ROW_HEIGHT * 3)
    second = doc.new_page(width=612, height=792)
    second.insert_textbox(pymupdf.Rect(60, 60, 550, 300), "A new section starts here. " * 20, fontsize=10)
    ruled_table(second, CLASSIFICATION[3:], 400)
    pages = parse_document(doc.tobytes(), "two-tables.pdf", max_pages=5).pages
    assert "Handling requirements" not in pages[1].text
