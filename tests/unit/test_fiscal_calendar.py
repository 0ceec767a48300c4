"""A filing's fiscal calendar as it states it, and the fiscal period noted beside its dated column
headers (shared/text/fiscal.py, services/ingest/fiscal_headers.py)."""

from __future__ import annotations

from datetime import date

from services.ingest.fiscal_headers import fiscal_note, noted_row, with_fiscal_periods
from services.ingest.parse import Page
from shared.text.fiscal import FiscalCalendar, calendar_of
from shared.text.tables import render_row

CISCO = "Annual Report on Form 10-K for the fiscal year ended July 27, 2024, as updated."
LULULEMON = (
    'For the fiscal year ended February 2, 2025. We refer to the fiscal year ended February 2, 2025 as "2024," '
    'the fiscal year ended January 28, 2024 as "2023". Our fiscal year ends on the Sunday closest to January 31.'
)


def test_the_calendar_is_the_one_the_filing_states():
    assert calendar_of(CISCO) == FiscalCalendar(7, 27)
    assert calendar_of(LULULEMON) == FiscalCalendar(2, 2, named_for_start=True)
    apple = "The Company's fiscal year is the 52- or 53-week period that ends on the last Saturday of September."
    assert calendar_of(apple) == FiscalCalendar(9, 31)
    assert calendar_of("Net sales grew in the quarter.") is None
    # A column header run into the text names no year's end; an exhibit index's old one is not the latest.
    assert calendar_of("Quarter Ended Fiscal Year Ended June 28, 2026 June 29, 2025 December 28, 2025") is None
    old = "(Exhibit 4.3 to the annual report on Form 10-K for the fiscal year ended November 30, 2007)"
    assert calendar_of(old + " " + "For the fiscal year ended December 31, 2024") == FiscalCalendar(12, 31)


def test_a_date_falls_in_the_fiscal_year_and_quarter_the_filing_names():
    cisco, lulu = FiscalCalendar(7, 27), FiscalCalendar(2, 2, named_for_start=True)
    assert (cisco.year_of(date(2024, 10, 26)), cisco.quarter_of(date(2024, 10, 26))) == (2025, 1)
    assert (cisco.year_of(date(2024, 1, 27)), cisco.quarter_of(date(2024, 1, 27))) == (2024, 2)
    assert cisco.year_of(date(2024, 7, 27)) == 2024
    assert lulu.year_of(date(2025, 2, 2)) == 2024 and lulu.year_of(date(2024, 1, 28)) == 2023
    assert (lulu.year_of(date(2024, 10, 27)), lulu.quarter_of(date(2024, 10, 27))) == (2024, 3)


def test_dated_headers_are_noted_with_their_fiscal_period_and_others_are_left_as_printed():
    cisco = FiscalCalendar(7, 27)
    assert fiscal_note("Three Months Ended October 26, 2024", cisco) == " (Q1 fiscal 2025)"
    assert fiscal_note("October 26, 2024", cisco) == " (fiscal 2025)"
    assert fiscal_note("July 27, 2024", cisco) is None
    assert fiscal_note("Fiscal 2024", cisco) is None
    row = render_row(
        "Current assets", "Inventories", [("October 26, 2024", "3,291"), ("July 27, 2024", "3,373")], "millions"
    )
    assert noted_row(row, cisco) == (
        "Current assets: Inventories — October 26, 2024 (fiscal 2025): 3,291 · July 27, 2024: 3,373 (in millions)."
    )
    assert noted_row("Revenue rose 7% in the quarter.", cisco) == "Revenue rose 7% in the quarter."


def test_a_calendar_no_column_bears_out_notes_nothing():
    row = render_row(None, "Total assets", [("December 31, 2024", "1,215,071"), ("December 31, 2023", "1,193,693")])
    exhibits = "Form 10-K for the fiscal year ended November 30, 2007)."
    pages = [Page(number=1, text=f"{exhibits}\n\n{row}")]
    assert with_fiscal_periods(pages) == pages
    quarter = render_row(None, "Revenue", [("Three Months Ended October 26, 2024", "13,841"), ("July 27, 2024", "1")])
    noted = with_fiscal_periods([Page(number=1, text=f"{CISCO}\n\n{quarter}")])
    assert "Three Months Ended October 26, 2024 (Q1 fiscal 2025): 13,841" in noted[0].text
