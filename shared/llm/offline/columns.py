"""A row's cells, and which of them is of the period a question asks.

A statement's row is stored with its column headers ("Total net sales — Years ended September 28,
2024: 391,035 · …", services/ingest/tables.py), or printed in its page's text without them ("Total
net sales $ 391,035 $ 383,285"). A figure for "FY2024", "Q1 FY2025", "as of December 31, 2022" or
"in Q4 2024" is the cell whose header says that period: its date, the fiscal year ingest noted beside
it, the year it prints, the quarter it numbers, and, of several columns of that period (a division
table's), the one that names what the question does or the whole's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from shared.text.fiscal import DATE, NOTE, first_date, noted_year, parsed_date
from shared.text.periods import asked_quarter, header_quarter, header_quarter_year, header_span
from shared.text.tables import CELL_MARK, CURRENCY, FIGURE, ROW, row_parts
from shared.text.years import YEAR, column_years

# A question that names its year as fiscal ("fiscal 2024", "FY24") means the filing's fiscal year.
_FISCAL = re.compile(r"\bfiscal\b|\bFY\s?'?\d{2}", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z&]+")
# Words of a column header that say its period, not what it is of.
_PERIOD_WORDS = frozenset(
    {
        "year",
        "years",
        "ended",
        "ending",
        "months",
        "three",
        "six",
        "nine",
        "twelve",
        "quarter",
        "quarters",
        "weeks",
        "fiscal",
        "as",
        "of",
        "at",
        "for",
        "the",
        "and",
        "in",
        "total",
    }
)
_WHOLE = frozenset({"total", "consolidated"})


Read = tuple[str, list[tuple[str, str]]]
"""A row's label and its (header, figure) cells."""


def header_years(header: str) -> list[str]:
    """The years a column is of: the fiscal year ingest noted beside its date ("Three Months Ended
    October 26, 2024 (Q1 fiscal 2025)" is of 2025; services/ingest/fiscal_headers.py), else the
    years it prints ("4Q'24" is of 2024)."""
    noted = noted_year(header)
    if noted:
        return [noted]
    quarter_year = header_quarter_year(header)
    return YEAR.findall(header) or ([quarter_year] if quarter_year else [])


@dataclass(frozen=True)
class Asked:
    """How a question names its period beyond the year: the one date it states ("as of December 31,
    2022"), whether it names the year as fiscal, and the quarter it names by number."""

    day: date | None = None
    fiscal: bool = False
    quarter: int | None = None
    # The question's words, for a column that names more than its period ("2024 PBNA").
    words: frozenset[str] = frozenset()


def asked(question: str) -> Asked:
    days = [d for m in DATE.finditer(question) if (d := parsed_date(m))]
    words = frozenset(w.lower() for w in _WORD.findall(question))
    return Asked(
        days[0] if len(set(days)) == 1 else None, bool(_FISCAL.search(question)), asked_quarter(question), words
    )


def _of_several(fits: list[tuple[str, str]], how: Asked) -> tuple[str, str] | None:
    """Of several columns of the period asked (a division table's "2024 FLNA", "2024 PBNA", "2024
    Total"), an amount's rather than a percentage's ("2024 (In thousands)" beside "2024 (Percentage
    of net revenue)"), the one whose header names what the question does, else the whole's
    ("Total", "Consolidated"), else the first."""

    def named(fit: tuple[str, str]) -> tuple[bool, int, bool]:
        words = {w.lower() for w in _WORD.findall(fit[0])}
        return value_of(fit[1]) is not None, len(words & how.words - _PERIOD_WORDS), bool(words & _WHOLE)

    return max(fits, key=named, default=None)


def value_of(printed: str) -> float | None:
    """A statement's figure as a number: "(1,577)" is -1,577, a dash is nil; none for a percentage."""
    if printed.endswith("%"):
        return None
    if printed.strip("$") in ("—", "–", "-"):
        return 0.0
    digits = printed.strip("()").replace("$", "").replace(",", "").lstrip("-–—")
    try:
        number = float(digits)
    except ValueError:
        return None
    return -number if printed.startswith(("(", "-", "–", "—")) else number


def cells(text: str) -> Read | None:
    """A row's label and its (header, figure) cells: a table's row sentence with its headers, or a
    row printed in a statement's text without them."""
    match = ROW.match(text.strip())
    if match and row_parts(text):
        pairs = [cell.rsplit(": ", 1) for cell in match.group("cells").split(CELL_MARK)]
        label = match.group("label").split(": ")[-1]
        return label, [(pair[0], pair[1]) if len(pair) == 2 else ("", pair[0]) for pair in pairs]
    tokens = [t.rstrip(",") for t in text.split() if t not in CURRENCY]
    first = next((i for i, t in enumerate(tokens) if FIGURE.match(t)), None)
    if not first:
        return None
    return " ".join(tokens[:first]), [("", t) for t in tokens[first:] if FIGURE.match(t)]


def lent_headers(text: str) -> list[str] | None:
    """The column headers a line may lend a row printed without them: a row's with headers, or the
    years of a line over a table's columns (shared/text/years.column_years)."""
    years = column_years(text)
    if years:
        return years
    read = cells(text)
    return [header for header, _ in read[1]] if read else None


def headed(text: str) -> bool:
    """The row says which column each of its figures is in."""
    read = cells(text)
    return bool(read and any(header for header, _ in read[1]))


def dated(text: str, beside: Sequence[str]) -> bool:
    """The row says which period each figure is of, or one of the rows with headers it may take them
    from (`beside`) has as many cells to lend it theirs."""
    read = cells(text)
    if read is None or headed(text):
        return read is not None
    return any(len(headers) == len(read[1]) for t in beside if (headers := lent_headers(t)))


def computable(text: str) -> bool:
    """The row has a figure to compute with (not only percentages: "Percentage of total net sales
    8% 8% 7%" is no line of net sales)."""
    read = cells(text)
    return bool(read and any(value_of(printed) is not None for _, printed in read[1]))


def column(
    pairs: list[tuple[str, str]], year: str | None, span: str | None, how: Asked = Asked()
) -> tuple[str, str] | None:
    """The cell for the period asked: of the span asked, on the date asked, else in the year asked,
    else of the latest year its headers name (Apple prints the latest period first, Amazon last).
    A year asked as fiscal is first the column's fiscal year (noted beside its date where the
    filing's fiscal year is not the calendar year), else first the year its date prints. Without
    headers, only the first cell, and only when no period is asked."""
    if not any(header for header, _ in pairs):
        return pairs[0] if pairs and year is None and span is None else None
    # A balance is as of a date: "at the end of Q1" is answered by a balance sheet's column.
    spans = span if any(header_span(header) for header, _ in pairs) else None
    fits = [(header, printed) for header, printed in pairs if spans is None or header_span(header) == spans]
    # Of a release's quarters ("4Q'24", "3Q'24"), the one asked, where the headers number them.
    quarter = how.quarter if spans else None
    fits = [fit for fit in fits if header_quarter(fit[0]) == quarter] or fits if quarter else fits
    dated = [fit for fit in fits if how.day and first_date(fit[0]) == how.day]
    if dated:
        return dated[0]
    if year is None:
        return max(fits, key=lambda fit: max(header_years(fit[0]), default=""), default=None)
    of_year = [fit for fit in fits if year in header_years(fit[0])]
    printed = [fit for fit in fits if year in YEAR.findall(NOTE.sub("", fit[0]))]
    first, then = (of_year, printed) if how.fiscal else (printed, of_year)
    return _of_several(first or then, how)


def with_headers(reads: list[Read | None], beside: Sequence[Sequence[str]] = ()) -> list[Read] | None:
    """The rows read, a row printed without headers taking those of a row with as many cells: first of
    a row it may take them from (`beside`, for each row: its passage's rows with headers, then the
    same line's row elsewhere, then other named rows: figure_lead.line_rows), else of the rows read
    (its table's, read as a table where the printed one was not: "Provision for income taxes (2,306)
    (2,706)" beside "Income before income taxes — Three Months Ended …: 12,189 · …")."""
    if any(read is None for read in reads):
        return None
    known = [read for read in reads if read]
    headed = [[h for h, _ in pairs] for _, pairs in known if all(h for h, _ in pairs)]
    out = []
    for i, (label, pairs) in enumerate(known):
        near = [headers for text in (beside[i] if i < len(beside) else ()) if (headers := lent_headers(text))]
        borrowed = next((h for h in [*near, *headed] if len(h) == len(pairs) and all(h)), None)
        if borrowed and not any(h for h, _ in pairs):
            pairs = list(zip(borrowed, [v for _, v in pairs], strict=True))
        out.append((label, pairs))
    return out
