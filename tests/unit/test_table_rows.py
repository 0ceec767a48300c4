"""Issue #27: a statement's rows are stored with their row label and column headers.

A cash-flow statement is drawn the way filings print one (label left, right-aligned figures under
stacked headers, a bare "$"), parsed by the real parser, and its row comes back as one sentence.
"""

from __future__ import annotations

import pymupdf

from services.ingest.parse import parse_document
from shared.text.tables import render_row, row_parts

ROWS = [
    ("Operating activities:", None),
    ("Net income", ("$", "59,531", "$", "48,351")),
    ("Depreciation and amortization", ("10,903", "10,157")),
    ("Investing activities:", None),
    ("Purchases of property, plant and equipment", ("(1,577)", "(1,213)")),
    ("Cash used in investing activities", ("(16,066)", "(46,446)")),
]


def right(page: pymupdf.Page, x_right: float, y: float, text: str) -> None:
    width = pymupdf.get_text_length(text, fontsize=9)
    page.insert_text((x_right - width, y), text, fontsize=9)


def statement_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((150, 60), "CONSOLIDATED STATEMENTS OF CASH FLOWS (In millions)", fontsize=10)
    page.insert_text((400, 90), "Year Ended", fontsize=9)
    right(page, 420, 102, "2018")
    right(page, 500, 102, "2017")
    y = 120
    for label, figures in ROWS:
        page.insert_text((40 if figures is None else 52, y), label, fontsize=9)
        if figures:
            values = [f for f in figures if f != "$"]
            right(page, 420, y, values[0])
            right(page, 500, y, values[1])
            if "$" in figures:
                page.insert_text((360, y), "$", fontsize=9)
        y += 12
    page.insert_text((40, y + 20), "See the accompanying notes, an integral part of this statement.", fontsize=9)
    return doc.tobytes()


def test_a_row_is_a_sentence_with_its_label_and_column_headers():
    (page,) = parse_document(statement_pdf(), "cash-flows.pdf", max_pages=5).pages
    assert (
        "Investing activities: Purchases of property, plant and equipment — Year Ended 2018: (1,577) · "
        "Year Ended 2017: (1,213)." in page.text
    ), page.text
    assert "Operating activities: Net income — Year Ended 2018: 59,531 · Year Ended 2017: 48,351." in page.text


def test_a_page_of_prose_has_no_rows():
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(
        pymupdf.Rect(72, 72, 540, 400),
        "Revenue grew 12% in 2018 to 59,531 million. Capital expenditure was 1,577 million. " * 4,
        fontsize=11,
    )
    (parsed,) = parse_document(doc.tobytes(), "prose.pdf", max_pages=5).pages
    assert " — " not in parsed.text


def test_a_row_reads_back_as_its_label_and_figures():
    row = render_row("Investing activities", "Purchases of property, plant and equipment", [("2018", "(1,577)")])
    assert row_parts(row) == ["Purchases of property, plant and equipment", "(1,577)"]
    assert row_parts("The committee — which meets monthly — approves exceptions.") is None


# Two columns of figures, right-aligned at these x positions, as in the statement above.
COLUMNS = (420, 500)


def draw_rows(page: pymupdf.Page, y: float, rows: list[tuple[float, str, tuple[str, ...] | None]]) -> float:
    """Rows as (indent, label, figures or None for a label line); returns the y below them."""
    for indent, label, figures in rows:
        page.insert_text((indent, y), label, fontsize=9)
        for x, figure in zip(COLUMNS, figures or (), strict=False):
            right(page, x, y, figure)
        y += 12
    return y


def draw_headers(page: pymupdf.Page, y: float, top: str, years: tuple[str, str]) -> float:
    page.insert_text((405, y), top, fontsize=9)
    for x, year in zip(COLUMNS, years, strict=True):
        right(page, x, y + 12, year)
    return y + 30


def parsed_pages(doc: pymupdf.Document) -> list[str]:
    return [p.text for p in parse_document(doc.tobytes(), "note.pdf", max_pages=5).pages]


def test_a_prose_line_ending_in_a_colon_above_a_table_is_not_a_row_group():
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((40, 60), "The following table shows the detail of other income, net (in millions):", fontsize=9)
    y = draw_headers(page, 80, "Year Ended", ("2018", "2017"))
    draw_rows(
        page,
        y,
        [
            (40, "Interest income", ("980", "722")),
            (40, "Interest expense", ("(998)", "(719)")),
            (52, "Total other income, net", ("(18)", "3")),
        ],
    )
    (text,) = parsed_pages(doc)
    assert "Total other income, net — Year Ended 2018: (18) · Year Ended 2017: 3." in text, text
    assert "(in millions): Total" not in text


def test_a_total_indented_under_a_group_belongs_to_the_enclosing_group():
    doc = pymupdf.open()
    page = doc.new_page()
    y = draw_headers(page, 60, "Year Ended", ("2018", "2017"))
    draw_rows(
        page,
        y,
        [
            (40, "Operating activities:", None),
            (52, "Net income", ("59,531", "48,351")),
            (52, "Changes in operating assets and liabilities:", None),
            (64, "Accounts receivable, net", ("(5,322)", "(2,093)")),
            (64, "Inventories", ("828", "(2,723)")),
            (76, "Cash generated by operating activities", ("77,434", "64,225")),
            (40, "Investing activities:", None),
            (52, "Purchases of marketable securities", ("(71,356)", "(159,486)")),
        ],
    )
    (text,) = parsed_pages(doc)
    assert "Changes in operating assets and liabilities: Inventories — Year Ended 2018: 828" in text, text
    assert "Operating activities: Cash generated by operating activities — Year Ended 2018: 77,434" in text, text
    assert "Investing activities: Purchases of marketable securities — Year Ended 2018: (71,356)" in text, text


def test_each_table_of_a_page_has_its_own_headers():
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((40, 60), "Inventories", fontsize=9)
    y = draw_headers(page, 75, "June 30", ("2023", "2022"))
    y = draw_rows(
        page,
        y,
        [
            (40, "Components", ("3,788", "1,637")),
            (40, "Finished goods", ("3,563", "3,309")),
            (52, "Total inventories", ("7,351", "4,946")),
        ],
    )
    page.insert_text((40, y + 10), "Property, Plant and Equipment, Net", fontsize=9)
    y = draw_headers(page, y + 25, "December 31", ("2021", "2020"))
    draw_rows(
        page,
        y,
        [
            (40, "Gross property, plant and equipment", ("114,337", "114,457")),
            (52, "Total property, plant and equipment, net", ("43,550", "42,117")),
        ],
    )
    (text,) = parsed_pages(doc)
    assert "Components — June 30 2023: 3,788 · June 30 2022: 1,637." in text, text
    assert "Gross property, plant and equipment — December 31 2021: 114,337 · December 31 2020: 114,457." in text


NAMES = ("Accounts", "Taxes", "Interest", "Rent", "Royalties", "Wages", "Dividends", "Fees")


def test_a_table_continued_on_the_next_page_keeps_its_headers():
    doc = pymupdf.open()
    page = doc.new_page()
    y = draw_headers(page, 60, "Year Ended", ("2018", "2017"))
    draw_rows(page, y, [(40, f"{name} payable", (f"{n},100", f"{n},200")) for n, name in enumerate(NAMES[:4], 1)])
    page = doc.new_page()
    page.insert_text((40, 40), "Table of Contents", fontsize=9)
    draw_rows(page, 70, [(40, f"{name} payable", (f"{n},100", f"{n},200")) for n, name in enumerate(NAMES[4:], 5)])
    first, second = parsed_pages(doc)
    assert "Wages payable — Year Ended 2018: 6,100 · Year Ended 2017: 6,200." in second, second
