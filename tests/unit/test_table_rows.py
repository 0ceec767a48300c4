"""Issue #27: a statement's rows are stored with their row label and column headers.

A cash-flow statement is drawn the way filings print one (label left, right-aligned figures under
stacked headers, a bare "$"), parsed by the real parser, and its row comes back as one sentence.
"""

from __future__ import annotations

import pymupdf

from services.ingest.parse import parse_document, plain_text
from services.ingest.tables import table_rows
from shared.text.sentences import split_sentences
from shared.text.tables import render_row, row_headers, row_parts
from shared.text.years import column_years

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


def balance_sheet_pdf() -> bytes:
    """Dates centred over their columns and wider than the figures, a heading between them and the
    first row, and a first row whose label wraps onto a second line (as Amazon's and Apple's print)."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((200, 60), "CONSOLIDATED BALANCE SHEETS", fontsize=10)
    for x_centre, date in ((395, "December 31, 2022"), (475, "March 31, 2023")):
        width = pymupdf.get_text_length(date, fontsize=9)
        page.insert_text((x_centre - width / 2, 90), date, fontsize=9)
    page.insert_text((200, 105), "ASSETS", fontsize=9)
    page.insert_text((40, 120), "Cash, cash equivalents, and restricted cash and cash equivalents,", fontsize=9)
    page.insert_text((52, 132), "beginning balances", fontsize=9)
    rows = [("beginning balances", "30,737", "24,977"), ("Marketable securities", "16,138", "15,062")]
    rows.append(("Inventories", "34,405", "33,318"))
    for i, (label, first, second) in enumerate(rows):
        y = 132 + 12 * i
        if i:
            page.insert_text((52, y), label, fontsize=9)
        right(page, 410, y, first)
        right(page, 490, y, second)
    return doc.tobytes()


def test_headers_are_found_past_a_heading_and_a_wrapped_first_label():
    (page,) = parse_document(balance_sheet_pdf(), "balance-sheet.pdf", max_pages=5).pages
    assert "Marketable securities — December 31, 2022: 16,138 · March 31, 2023: 15,062." in page.text, page.text
    assert (
        "Cash, cash equivalents, and restricted cash and cash equivalents, beginning balances — "
        "December 31, 2022: 30,737 · March 31, 2023: 24,977." in page.text
    ), page.text


def test_a_rows_sentence_is_not_split_at_a_full_stop_in_its_headers_and_its_label_may_hold_a_dash():
    row = render_row(
        None, "Automotive sales", [("Year Ended December 31, 2023", "78,509"), ("2023 vs. 2022 Change", "17%")]
    )
    assert split_sentences(f"Revenues grew in the year.\n\n{row}") == ["Revenues grew in the year.", row]
    dashed = render_row(None, "Earnings per share attributable to Intel—basic", [("Q1 2023", "(0.66)")])
    assert row_parts(dashed) == ["Earnings per share attributable to Intel—basic", "(0.66)"]


def test_inline_runs_join_as_the_page_prints_them():
    assert plain_text("iPhone<sup>&#xae;</sup> is the line; (i) Common Stock<b>, </b>$0.00001 par value") == (
        "iPhone® is the line; (i) Common Stock, $0.00001 par value"
    )


def income_statement_pdf() -> bytes:
    """A label wrapped before a name ("Net loss attributable to" / "Krispy Kreme, Inc."), as a results
    release printed from a browser shows it, below a row and above a line of prose that is no label."""
    doc = pymupdf.open()
    page = doc.new_page()
    right(page, 420, 90, "2026")
    right(page, 500, 90, "2025")
    lines = [
        ("Net loss", ("(19,831)", "(441,118)")),
        ("Net loss attributable to", None),
        ("Example Holdings, Inc.", ("(20,311)", "(435,260)")),
        ("Diluted shares", ("172,578", "170,802")),
        # A narrow label column wraps one label over three lines.
        ("Capital contribution by", None),
        ("shareholders, net of loans", None),
        ("issued", ("132", "262")),
        ("These measures are reconciled in the tables that follow, and described in the notes to", None),
        ("Adjusted EBITDA", ("38,411", "52,370")),
    ]
    for i, (label, figures) in enumerate(lines):
        y = 105 + 12 * i
        page.insert_text((40, y), label, fontsize=9)
        for x, figure in zip((420, 500), figures or (), strict=False):
            right(page, x, y, figure)
    return doc.tobytes()


def test_a_label_wrapped_before_a_name_or_over_three_lines_is_read_whole_and_a_line_of_prose_is_no_label():
    (page,) = parse_document(income_statement_pdf(), "release.pdf", max_pages=5).pages
    assert "Net loss attributable to Example Holdings, Inc. — 2026: (20,311) · 2025: (435,260)." in page.text, page.text
    assert "Capital contribution by shareholders, net of loans issued — 2026: 132 · 2025: 262." in page.text, page.text
    assert "\nAdjusted EBITDA — 2026: 38,411 · 2025: 52,370." in page.text, page.text


def net_sales_page() -> pymupdf.Page:
    """A note's table as a browser prints it: labels with footnote marks a space after them."""
    page = pymupdf.open().new_page(width=612, height=792)
    page.insert_text((380, 60), "Year Ended December 31,", fontsize=9)
    for x, year in ((380, "2023"), (450, "2024"), (520, "2025")):
        page.insert_text((x, 74), year, fontsize=9)
    page.insert_text((72, 88), "Net Sales:", fontsize=9)
    rows = [
        ("Online stores (1)", ("231,872", "247,029", "269,287")),
        ("Advertising services (4)", ("46,906", "56,214", "68,635")),
        ("AWS", ("90,757", "107,556", "128,725")),
        ("Consolidated", ("574,785", "637,959", "716,924")),
    ]
    for i, (label, figures) in enumerate(rows):
        y = 102 + 14 * i
        page.insert_text((80, y), label, fontsize=9)
        for x, figure in zip((372, 442, 512), figures, strict=True):
            page.insert_text((x, y), figure, fontsize=9)
    return page


def test_a_footnote_mark_after_a_label_is_neither_a_figure_nor_the_labels_words():
    rows = {row_parts(r)[0]: r for r in table_rows(net_sales_page())}
    # "(1)" reads as a figure (a negative one); the row was dropped, and the table's headers with it.
    assert set(rows) == {"Online stores", "Advertising services", "AWS", "Consolidated"}, rows
    assert row_headers(rows["Advertising services"]) == [
        "Year Ended December 31, 2023",
        "Year Ended December 31, 2024",
        "Year Ended December 31, 2025",
    ], rows
    assert "68,635" in rows["Advertising services"] and "(4)" not in rows["Advertising services"]


def test_a_line_of_years_over_a_table_printed_without_its_grid_is_kept_on_a_page_of_figures():
    # A statement's page leaves out the blocks of bare figures its rows already hold; a line of years
    # says which period each figure printed under it is of, so it stays (shared/text/years.column_years).
    doc = pymupdf.open("pdf", statement_pdf())
    page = doc[0]
    page.insert_text((40, 420), "The following table disaggregates net revenue by channel.", fontsize=9)
    for x_right, year in ((330, "2024"), (390, "2023"), (450, "2022")):
        right(page, x_right, 440, year)
    page.insert_text((40, 456), "E-commerce", fontsize=9)
    for x_right, figure in ((330, "4,570,446"), (390, "4,311,110"), (450, "3,699,791")):
        right(page, x_right, 456, figure)
    for x_right, total in ((330, "10,588,126"), (390, "9,619,278"), (450, "8,110,518")):
        right(page, x_right, 470, total)
    (parsed,) = parse_document(doc.tobytes(), "channels.pdf", max_pages=5).pages
    assert "\n\n2024 2023 2022\n\n" in parsed.text, parsed.text
    assert "10,588,126" not in parsed.text


def test_a_line_of_years_holds_years_and_nothing_else():
    assert column_years("2024 2023 2022") == ["2024", "2023", "2022"]
    assert column_years("Fiscal 2024 Fiscal 2023 (In thousands)") == ["2024", "2023"]
    for line in (
        "2024",
        "In 2024 and 2023",
        "December 31, 2024 December 31, 2023",
        "2024 2023 % Change",
        "$ 2,024 $ 2,023",
    ):
        assert column_years(line) is None, line

