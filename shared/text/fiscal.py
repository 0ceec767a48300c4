"""A filing's fiscal calendar, as the filing states it, and the fiscal period a column's date falls in.

Analysts name periods by fiscal year ("Q1 FY2025", "fiscal 2024"); statements head their columns
with dates ("Three Months Ended October 26, 2024"). Where the fiscal year does not end in December
the two differ: Cisco's first quarter of fiscal 2025 ended October 26, 2024, and lululemon calls the
year ended February 2, 2025 "2024". Both are said in the filing itself ("for the fiscal year ended
July 27, 2024"; "We refer to the fiscal year ended February 2, 2025 as "2024""), so ingest reads the
calendar from the document and notes the fiscal period beside each dated column header that does not
already say it (services/ingest/fiscal_headers.py). Nothing is guessed: a filing that does not state
its fiscal year's end gets no note.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta

MONTHS = {
    name: i + 1
    for i, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        )
    )
    for name in names
}
_MONTH = (
    r"(January|February|March|April|May|June|July|August|September|October|November|December|"
    r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
DATE = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}}),\s*((?:19|20)\d{{2}})\b", re.I)
# "For the fiscal year ended July 27, 2024": the year's end, in a sentence (the cover's, a reference
# to the last annual report), not a column header run into the text ("Quarter Ended Fiscal Year Ended
# June 28, 2026 June 29, 2025 December 28, 2025").
_YEAR_ENDED = re.compile(
    rf"\b(?:for|in|of|during)\s+(?:the|its|our)\s+fiscal\s+year\s+end(?:ed|ing)\s+(?:on\s+)?{DATE.pattern}", re.I
)
# "fiscal year is the 52- or 53-week period that ends on the last Saturday of September", "We
# operate on a 52- or 53-week year, ending on the last Sunday in January".
_YEAR_ENDS = re.compile(
    rf"\b(?:fiscal\s+year|52[- ]\s*or\s+53[- ]week\s+(?:year|period))\b[^.]{{0,80}}?\bend(?:s|ing)?\b"
    rf"[^.]{{0,50}}?\b{_MONTH}\b",
    re.I,
)
# How a filing names its years: 'the fiscal year ended February 2, 2025 as "2024"', "fiscal 2024
# ended February 1, 2025", "fiscal year 2024 ended January 28, 2024".
_NAMED_AS = re.compile(rf"\bfiscal\s+year\s+ended\s+{DATE.pattern}\s+as\s+[\"“]?((?:19|20)\d{{2}})", re.I)
_NAMED_ENDED = re.compile(
    rf"\bfiscal\s+(?:year\s+)?((?:19|20)\d{{2}})\s*,?\s+(?:which\s+)?end(?:ed|s|ing)\s+(?:on\s+)?{DATE.pattern}", re.I
)
# A column header of one quarter's span: "Three Months Ended …", "Quarter Ended …", "13 weeks" (the
# offline engine's periods and ingest's notes read it alike).
QUARTER_ENDED = re.compile(r"\bthree\s+months\b|\bquarter\s+ended\b|\b1[34]\s+weeks\b", re.I)
# The note ingest sets beside a dated header: "Three Months Ended October 26, 2024 (Q1 fiscal 2025)".
NOTE = re.compile(r" \((?:Q([1-4]) )?fiscal ((?:19|20)\d{2})\)")
# A 52/53-week year ends on a weekday near its month's end: up to a week into the next month.
SLACK = timedelta(days=7)
QUARTER_DAYS = 91.3


@dataclass(frozen=True)
class FiscalCalendar:
    """When a filing's fiscal year ends, and whether it is named for the calendar year it ends in
    (Apple's fiscal 2024 ended September 28, 2024) or began in (lululemon's 2024 ended February 2,
    2025)."""

    end_month: int
    end_day: int
    named_for_start: bool = False

    def year_end(self, year: int) -> date:
        """The fiscal year end in calendar year `year`, to within the week a 52/53-week year moves."""
        month = self.end_month
        day = min(self.end_day, [31, 29 if year % 4 == 0 else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1])
        return date(year, month, day)

    def year_of(self, day: date) -> int:
        """The fiscal year a period ending on `day` belongs to, as the filing names it."""
        ends = day.year if day <= self.year_end(day.year) + SLACK else day.year + 1
        return ends - 1 if self.named_for_start else ends

    def quarter_of(self, day: date) -> int:
        """Which quarter of its fiscal year a period ending on `day` is (4: the year's end)."""
        ends = day.year if day <= self.year_end(day.year) + SLACK else day.year + 1
        days = (day - self.year_end(ends - 1)).days
        return min(4, max(1, round(days / QUARTER_DAYS)))

    def calendar_differs(self) -> bool:
        """A fiscal year that is not the calendar year (nor a 52/53-week year ending near December 31)."""
        return self.end_month != 12 or self.named_for_start


def note(quarter: int | None, year: int) -> str:
    """The note beside a header: " (Q1 fiscal 2025)", " (fiscal 2024)"."""
    return f" ({f'Q{quarter} ' if quarter else ''}fiscal {year})"


def noted_year(header: str) -> str | None:
    """The fiscal year noted beside a header, if any."""
    match = NOTE.search(header)
    return match.group(2) if match else None


def parsed_date(match: re.Match[str], at: int = 1) -> date | None:
    """The date of a match's month, day and year groups, starting at group `at`."""
    month, day, year = match.group(at), match.group(at + 1), match.group(at + 2)
    try:
        return date(int(year), MONTHS[month.lower().rstrip(".")], int(day))
    except (KeyError, ValueError):
        return None


def first_date(text: str) -> date | None:
    """The first date the text prints ("Three Months Ended October 26, 2024"), if any."""
    match = DATE.search(text)
    return parsed_date(match) if match else None


def calendar_of(text: str) -> FiscalCalendar | None:
    """The fiscal calendar a filing's text states, if it states one: the month and day its fiscal
    year ends (by the latest "fiscal year ended <date>", the cover's or the last annual report's;
    an exhibit index cites decades-old ones), else the month of "fiscal year … ends on the last
    Saturday of <month>"), and how its years are named."""
    text = " ".join(text.split())
    ended = [d for m in _YEAR_ENDED.finditer(text) if (d := parsed_date(m))]
    if ended:
        latest = max(ended)
        month, day = latest.month, latest.day
    else:
        said = Counter(MONTHS[m.group(1).lower().rstrip(".")] for m in _YEAR_ENDS.finditer(text))
        if not said:
            return None
        month, day = said.most_common(1)[0][0], 31
    pairs = [(int(m.group(4)), d) for m in _NAMED_AS.finditer(text) if (d := parsed_date(m))]
    pairs += [(int(m.group(1)), d) for m in _NAMED_ENDED.finditer(text) if (d := parsed_date(m, 2))]
    start_named = sum(d.year == label + 1 for label, d in pairs)
    return FiscalCalendar(month, day, named_for_start=start_named > len(pairs) - start_named)


def ends_a_year(day: date, calendar: FiscalCalendar) -> bool:
    """The date is a fiscal year's end by the calendar (to within a 52/53-week year's week)."""
    end = calendar.year_end(day.year)
    return abs((day - end).days) <= SLACK.days or abs((day - calendar.year_end(day.year - 1)).days) <= SLACK.days
