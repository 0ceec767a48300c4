"""The unit a table prints its amounts in, and the unit and rounding a question asks
(shared/text/units.py; ingest keeps each row's unit, services/ingest/tables.py)."""

from __future__ import annotations

import pymupdf

from services.ingest.chunker import chunk_pages
from services.ingest.parse import Page
from services.ingest.tables import table_rows
from shared.text.quotes import quote_of
from shared.text.tables import render_row, row_cells, row_parts, row_unit, without_notes
from shared.text.units import (
    asked_decimals,
    asked_unit,
    column_unit,
    converted,
    group_unit,
    printed_unit,
    shown,
    unit_applies,
)


def test_a_tables_note_names_its_unit_and_prose_does_not():
    assert printed_unit("(In millions, except number of shares, which are reflected in thousands)") == "millions"
    assert printed_unit("($ in millions)") == "millions"
    assert printed_unit("(Dollars in thousands)") == "thousands"
    assert printed_unit("Millions of dollars") == "millions"
    assert printed_unit("(Unaudited; in millions)") == "millions"
    assert printed_unit("hundreds of millions of dollars in revenue") is None
    assert printed_unit("Three Months Ended") is None
    # A table's introduction or a group of rows that ends with its unit.
    assert group_unit("for the nine months ended June 25, 2022 (in millions):") == "millions"
    assert group_unit("Average daily shipments (in thousands):") == "thousands"
    # Units over columns ("Number of RSUs (in thousands)" beside "Aggregate Fair Value (in millions)").
    assert column_unit("(in thousands) Value Per RSU (in millions)")
    assert column_unit("Aggregate Fair Value (in millions)")
    assert not column_unit("(In millions, except per share amounts)")


def test_per_share_amounts_share_counts_and_percentages_are_not_in_the_tables_unit():
    assert unit_applies("Share-based compensation expense")
    assert unit_applies("Property, plant and equipment, net")
    assert not unit_applies("Earnings per share: Diluted")
    assert not unit_applies("Shares used in computing earnings per share: Basic")
    assert not unit_applies("Gross margin percentage")


def test_the_unit_and_rounding_a_question_asks():
    assert asked_unit("What is the year end FY2018 net PPNE for 3M? Answer in USD billions.") == "billions"
    assert asked_unit("What is the FY2018 capital expenditure amount (in USD millions) for 3M?") == "millions"
    assert asked_unit("in $ thousands") == "thousands"
    assert asked_unit("What was Apple's current ratio?") is None
    assert asked_decimals("Round your answer to two decimal places.") == 2
    assert asked_decimals("rounded to 1 decimal place") == 1
    assert asked_decimals("Round to the nearest whole number.") == 0
    assert asked_decimals("What was the margin?") is None


def test_an_amount_is_restated_exactly_unless_a_rounding_is_asked():
    assert shown(converted(8_738, "millions", "billions")) == "8.738"
    assert shown(converted(330_995, "thousands", "millions"), 1) == "331.0"
    assert shown(converted(95_000, "millions", "billions")) == "95"
    assert shown(converted(1.5, "billions", "millions")) == "1,500"


def test_a_row_keeps_its_unit_after_its_cells_and_reads_back_without_it():
    row = render_row(
        "Current assets", "Inventories", [("June 25, 2022", "5,433"), ("September 25, 2021", "6,580")], "millions"
    )
    assert row == "Current assets: Inventories — June 25, 2022: 5,433 · September 25, 2021: 6,580 (in millions)."
    assert row_parts(row) == ["Inventories", "5,433", "6,580"]
    assert row_unit(row) == "millions"
    assert row_cells(row) == ["June 25, 2022: 5,433", "September 25, 2021: 6,580"]
    assert row_unit(render_row(None, "Diluted", [("2024", "6.08")])) is None
    # A quote cut to the cells that fit keeps the unit of the figures it shows.
    long = render_row(
        None, "Total net sales", [(f"Three Months Ended July {d}, 2023", "81,797") for d in range(1, 12)], "millions"
    )
    cut = quote_of([long])
    assert cut.endswith("(in millions) …"), cut
    assert row_parts(cut.removesuffix(" …")) is not None


def page_with(lines: list[tuple[float, str]]) -> pymupdf.Page:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    y = 60.0
    for x, text in lines:
        page.insert_text((x, y), text, fontsize=9)
        y += 14
    return page


def test_ingest_gives_each_row_the_unit_of_the_note_above_it_and_none_under_column_units():
    page = page_with(
        [
            (72, "CONDENSED CONSOLIDATED BALANCE SHEETS"),
            (72, "(In millions, except par value)"),
            (380, "June 25, 2022      September 25, 2021"),
            (72, "Cash and cash equivalents"),
            (72, "Inventories"),
            (72, "Total current assets"),
            (72, "Number of RSUs (in thousands)   Aggregate Fair Value (in millions)"),
            (72, "RSUs granted"),
            (72, "RSUs vested"),
            (72, "RSUs canceled"),
        ]
    )
    for y, (a, b) in zip(
        (102, 116, 130, 158, 172, 186),
        [
            ("27,502", "34,940"),
            ("5,433", "6,580"),
            ("112,292", "134,836"),
            ("84,927", "150"),
            ("(109,846)", "70"),
            ("(12,986)", "98"),
        ],
        strict=True,
    ):
        page.insert_text((400, y), a, fontsize=9)
        page.insert_text((500, y), b, fontsize=9)
    rows = table_rows(page)
    units = {row_parts(r)[0]: row_unit(r) for r in rows}
    assert units["Inventories"] == "millions", rows
    assert units["RSUs granted"] is None, rows


def test_the_notes_set_on_rows_move_no_chunk_boundary():
    cells = [("Three Months Ended October 26, 2024", "13,841"), ("Three Months Ended October 28, 2023", "14,668")]
    rows = [render_row("Revenue", f"Line {i}", cells) for i in range(40)]
    noted = [
        render_row(
            "Revenue", f"Line {i}", [(f"{h} (Q1 fiscal {2025 - j})", v) for j, (h, v) in enumerate(cells)], "millions"
        )
        for i in range(40)
    ]
    plain = chunk_pages([Page(number=1, text="\n\n".join(rows))], 1000, 150)
    with_notes = chunk_pages([Page(number=1, text="\n\n".join(noted))], 1000, 150)
    assert [without_notes(c.text) for c in with_notes] == [c.text for c in plain]
    assert without_notes(noted[0]) == rows[0]
