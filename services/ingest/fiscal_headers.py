"""The fiscal period beside each dated column header of a filing whose fiscal year is not the
calendar year.

"Three Months Ended October 26, 2024" is Cisco's first quarter of fiscal 2025; lululemon's "Fiscal
Year Ended February 2, 2025" is its fiscal 2024. A row is stored with the period as the filing names
it, "Three Months Ended October 26, 2024 (Q1 fiscal 2025)", so that "Q1 FY2025" finds the row and its
column (shared/llm/offline/computed.py) the way the filing's own MD&A says it. The calendar is the one
the filing states (shared/text/fiscal.py); a filing that states none, or whose fiscal year is the
calendar year, is stored as printed.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from shared.text.fiscal import QUARTER_ENDED, FiscalCalendar, calendar_of, ends_a_year, first_date, note
from shared.text.tables import CELL_MARK, ROW, row_headers, row_parts

if TYPE_CHECKING:
    from services.ingest.parse import Page

# A header that names its fiscal year already ("Fiscal 2024", "FY24"); "Fiscal Year Ended
# February 2, 2025" names only the date.
_NOTED = re.compile(r"\bfiscal\s+(?:year\s+)?(?:19|20)\d{2}\b|\bFY\s?'?\d{2}", re.I)


def fiscal_note(header: str, calendar: FiscalCalendar) -> str | None:
    """What to note beside a dated header: " (Q1 fiscal 2025)" for a quarter, " (fiscal 2024)" for a
    date in a fiscal year named for another calendar year; none for a header that already names its
    fiscal period, has no date, or whose date's year is its fiscal year's (and no quarter)."""
    day = None if _NOTED.search(header) else first_date(header)
    if day is None:
        return None
    year = calendar.year_of(day)
    if QUARTER_ENDED.search(header):
        return note(calendar.quarter_of(day), year)
    return note(None, year) if year != day.year else None


def noted_row(text: str, calendar: FiscalCalendar) -> str:
    """A row sentence with the fiscal period noted beside each dated header; prose as it is."""
    match = ROW.match(text)
    if not match or not row_parts(text):
        return text
    cells = []
    for cell in match.group("cells").split(CELL_MARK):
        header, sep, value = cell.rpartition(": ")
        cells.append(f"{header}{noted}{sep}{value}" if (noted := fiscal_note(header, calendar)) and sep else cell)
    start, end = match.span("cells")
    return text[:start] + CELL_MARK.join(cells) + text[end:]


def with_fiscal_periods(pages: list[Page]) -> list[Page]:
    """The pages, each row's dated headers noted with their fiscal period where the filing's fiscal
    year is not the calendar year. Rows follow a page's prose (services/ingest/parse.py), so the
    offsets of its headings stay as they are."""
    calendar = calendar_of(" ".join(page.text for page in pages))
    if calendar is None or not calendar.calendar_differs():
        return pages
    # The statements bear the calendar out: a balance sheet or an annual column is dated at a
    # fiscal year's end ("July 27, 2024" beside a quarter's date). A year-end the text names but no
    # column shows (an exhibit index's "fiscal year ended November 30, 2007") is not the filing's.
    headers = [h for page in pages for p in page.text.split("\n\n") for h in row_headers(p)]
    days = [d for h in headers if (d := first_date(h))]
    if not any(ends_a_year(day, calendar) for day in days):
        return pages
    return [replace(page, text="\n\n".join(noted_row(p, calendar) for p in page.text.split("\n\n"))) for page in pages]
