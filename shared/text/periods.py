"""The span of time a question asks about, and whether a table row has a column for it.

A quarterly filing prints the same line item for several spans: the quarter ("Three Months
Ended"), the year to date ("Six" or "Nine Months Ended") and, in some filings, the trailing twelve
months. The income statement's net income has the quarter's column; the cash flow statement's has
only the year to date. "What net income did Apple report for the second quarter?" is answered by
the row with the quarter's column.
"""

from __future__ import annotations

import re

from shared.text.fiscal import QUARTER_ENDED
from shared.text.search_query import full_year
from shared.text.tables import row_headers

# How questions name each span, keyed by the words statements head its column with.
SPANS = {
    "Three Months": re.compile(r"\bthree[-\s]months?\b|\bquarter(?:ly)?\b|\bQ[1-4]\b", re.I),
    "Six Months": re.compile(r"\bsix[-\s]months?\b|\bfirst\s+half\b|\bH1\b|\bhalf[-\s]year\b", re.I),
    "Nine Months": re.compile(r"\bnine[-\s]months?\b|\bfirst\s+three\s+quarters\b", re.I),
    "Twelve Months": re.compile(r"\btwelve[-\s]months?\b|\btrailing\b|\bTTM\b|\bLTM\b", re.I),
}
QUARTER = "Three Months"
# How column headers name each span besides its own words: retailers and restaurants report in
# weeks and quarters ("Quarter Ended June 28, 2026 (13 weeks)", "Two Quarters Ended …").
# Banks' and many companies' releases head a quarter's column by its number: "4Q'24", "Q4 2024",
# "Fourth Quarter 2024"; ingest notes a fiscal quarter's ("(Q1 fiscal 2025)").
QUARTER_HEADER = re.compile(
    r"\b(?P<n>[1-4])Q\s?['’]?(?P<n_year>\d{2})\b|\bQ(?P<q>[1-4])(?:\s?['’](?P<q_year>\d{2}))?\b"
    r"|\b(?P<word>first|second|third|fourth)\s+quarter\b",
    re.I,
)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_ASKED_QUARTER = re.compile(
    r"\bQ(?P<q>[1-4])\b|\b(?P<n>[1-4])Q\b|\b(?P<word>first|second|third|fourth)\s+(?:fiscal\s+)?quarter\b", re.I
)
HEADER_SPANS = {
    "Three Months": QUARTER_ENDED,
    "Six Months": re.compile(r"\bsix\s+months\b|\btwo\s+quarters\b|\b2[67]\s+weeks\b", re.I),
    "Nine Months": re.compile(r"\bnine\s+months\b|\bthree\s+quarters\b|\b39\s+weeks\b|\b40\s+weeks\b", re.I),
    "Twelve Months": re.compile(r"\btwelve\s+months\b|\b5[23]\s+weeks\b", re.I),
}


def asked_span(question: str) -> str | None:
    """The column span the question asks for ("Three Months"); None when it names none, or two
    beyond the quarter."""
    # A longer span named beside "quarter" ("the first nine months, from the third quarter's
    # report") is the one asked.
    found = [span for span, pattern in SPANS.items() if pattern.search(question)]
    if len(found) > 1 and found[0] == QUARTER:
        found = found[1:]
    return found[0] if len(found) == 1 else None


def span_fit(row: str, span: str | None) -> int:
    """1 when a row sentence has a column for the asked span, -1 when its columns are of other
    spans only, 0 when no span is asked or the row's columns name none (a balance sheet's dates, a
    row printed without headers)."""
    spans = [s for s in (header_span(h) for h in row_headers(row)) if s]
    if span is None or not spans:
        return 0
    return 1 if span in spans else -1


def header_span(header: str) -> str | None:
    """The span a column header names ("Three Months" for "Quarter Ended June 28, 2026" and for
    "4Q'24"), if any."""
    named = next((span for span, pattern in HEADER_SPANS.items() if pattern.search(header)), None)
    return named or (QUARTER if QUARTER_HEADER.search(header) else None)


def _quarter(match: re.Match[str] | None) -> int | None:
    if match is None:
        return None
    word = match.group("word")
    return _ORDINALS[word.lower()] if word else int(match.group("n") or match.group("q"))


def header_quarter(header: str) -> int | None:
    """Which quarter a column header names by number ("4Q'24", "Q1 fiscal 2025" as ingest notes it,
    "Fourth Quarter 2024"), if any."""
    return _quarter(QUARTER_HEADER.search(header))


def header_quarter_year(header: str) -> str | None:
    """The year a quarter's column gives with its number and two digits ("4Q'24", "Q4'24": 2024)."""
    match = QUARTER_HEADER.search(header)
    year = match and (match.group("n_year") or match.group("q_year"))
    return full_year(year) if year else None


def asked_quarters(question: str) -> set[int]:
    """The quarters the question names ("Q4 2024", "the fourth quarter")."""
    return {q for m in _ASKED_QUARTER.finditer(question) if (q := _quarter(m))}


def asked_quarter(question: str) -> int | None:
    """Which quarter the question names, if one."""
    found = asked_quarters(question)
    return found.pop() if len(found) == 1 else None
