"""A figure the filing does not print, computed from the rows it does, with its working shown.

"Calculate AAPL's operating margin for FY2024" is answered by the income statement's "Operating
income" and "Total net sales" rows (shared/llm/offline/rows.py); this module reads their figures for
the period asked and says what they come to: "Operating margin: 31.5% (Year Ended September 28,
2024), computed from the rows quoted below: Operating income 123,216 ÷ Total net sales 391,035."
The working names each row and figure, so the reader checks the arithmetic against the cited rows
rather than trusting it. A figure is computed only when every line has a row with a figure for the
same period; otherwise the rows are quoted alone, as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from shared.llm.offline.periods import asked_span, header_span
from shared.text.fiscal import DATE, NOTE, first_date, noted_year, parsed_date
from shared.text.ratios import ASKS_PERCENT, Computation, Formula
from shared.text.search_query import full_year
from shared.text.tables import CELL_MARK, CURRENCY, FIGURE, ROW, row_parts, row_unit
from shared.text.units import asked_decimals, asked_unit, converted, shown

# "2024", "FY2024", "fiscal 2024"; "FY24".
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_FISCAL_YEAR = re.compile(r"\bFY\s?'?(\d{2})(?!\d)", re.I)
# A question that names its year as fiscal ("fiscal 2024", "FY24") means the filing's fiscal year.
_FISCAL = re.compile(r"\bfiscal\b|\bFY\s?'?\d{2}", re.I)
# Days in a column's period, for a "days" figure computed from a flow of that period.
SPAN_DAYS = {"Three Months": 91, "Six Months": 182, "Nine Months": 273, "Twelve Months": 365}
YEAR_DAYS = 365
# A line of cash paid out or of an expense may be printed negative ("Payments for acquisition of
# property, plant and equipment (9,447)", Amazon's "Provision for income taxes (2,706)"); a figure
# computed from it uses the amount paid or charged.
_OUTFLOW = re.compile(r"\b(?:payments?|purchases?|paid|repurchases?|dividends|provision|expenses?|costs?)\b", re.I)
FIRST_COLUMN = "the first column of each row"
# A change asked as a percentage: "By what percentage did net sales grow", "the year-over-year change
# in revenue (in percent)", "percent increase in operating income".
_CHANGE = re.compile(r"\b(?:grow(?:th|n)?|grew|increase[sd]?|decrease[sd]?|decline[sd]?|change[sd]?|rose|fell)\b", re.I)
# "growth" and "YoY" ask a rate: "What was the YoY growth in royalties?"
_GROWTH_RATE = re.compile(r"\bgrowth\b|\byoy\b", re.I)
# The yearly rate that compounds to the change: "the FY2019 - FY2021 total revenue CAGR".
_CAGR = re.compile(r"\bCAGR\b|\bcompound(?:ed)?\s+annual\s+growth", re.I)


@dataclass(frozen=True)
class Figure:
    """One line's figure for the period computed: its row's label, the column's header, the value and
    how it is shown in the working (as printed; cash paid out as the amount paid)."""

    label: str
    header: str
    value: float
    printed: str


Read = tuple[str, list[tuple[str, str]]]
"""A row's label and its (header, figure) cells."""


def asked_years(question: str) -> list[str]:
    """The years the question names ("fiscal 2024", "FY24"), earliest first, once each."""
    return sorted(set(_YEAR.findall(question) + [full_year(y) for y in _FISCAL_YEAR.findall(question)]))


def asked_year(question: str) -> str | None:
    """The latest year the question names, if any."""
    years = asked_years(question)
    return years[-1] if years else None


def header_years(header: str) -> list[str]:
    """The years a column is of: the fiscal year ingest noted beside its date ("Three Months Ended
    October 26, 2024 (Q1 fiscal 2025)" is of 2025; services/ingest/fiscal_headers.py), else the
    years it prints."""
    noted = noted_year(header)
    return [noted] if noted else _YEAR.findall(header)


@dataclass(frozen=True)
class Asked:
    """How a question names its period beyond the year: the one date it states ("as of December 31,
    2022"), and whether it names the year as fiscal."""

    day: date | None = None
    fiscal: bool = False


def asked(question: str) -> Asked:
    days = [d for m in DATE.finditer(question) if (d := parsed_date(m))]
    return Asked(days[0] if len(set(days)) == 1 else None, bool(_FISCAL.search(question)))


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
    dated = [fit for fit in fits if how.day and first_date(fit[0]) == how.day]
    if dated:
        return dated[0]
    if year is None:
        return max(fits, key=lambda fit: max(header_years(fit[0]), default=""), default=None)
    of_year = [fit for fit in fits if year in header_years(fit[0])]
    printed = [fit for fit in fits if year in _YEAR.findall(NOTE.sub("", fit[0]))]
    first, then = (of_year, printed) if how.fiscal else (printed, of_year)
    return next(iter(first or then), None)


def with_headers(reads: list[Read | None]) -> list[Read] | None:
    """The rows read, a row printed without headers taking those of a row with as many cells (its
    table's, read as a table where the printed one was not: "Provision for income taxes (2,306)
    (2,706)" beside "Income before income taxes — Three Months Ended …: 12,189 · …")."""
    if any(read is None for read in reads):
        return None
    known = [read for read in reads if read]
    headed = [[h for h, _ in pairs] for _, pairs in known if all(h for h, _ in pairs)]
    out = []
    for label, pairs in known:
        borrowed = next((h for h in headed if len(h) == len(pairs)), None)
        if borrowed and not any(h for h, _ in pairs):
            pairs = list(zip(borrowed, [v for _, v in pairs], strict=True))
        out.append((label, pairs))
    return out


Cell = tuple[str, str, float]
"""A figure's column header, how it is shown, and its value."""


def cell_for(
    pairs: list[tuple[str, str]], year: str | None, span: str | None, how: Asked, *, averaged: bool
) -> Cell | None:
    """The row's figure for the period asked; for a part asked as an average ("average total assets
    between FY2018 and FY2019"), the mean of the year asked and the year before, both shown. None
    without a figure for each."""
    years = [year, str(int(year) - 1)] if averaged and year else [year]
    if averaged and len(years) < 2:
        return None
    # The year before an average's is asked by its year alone.
    found = [column(pairs, y, span, how if i == 0 else Asked(fiscal=how.fiscal)) for i, y in enumerate(years)]
    values = [value_of(c[1]) if c else None for c in found]
    if any(c is None for c in found) or any(v is None for v in values):
        return None
    cells_found = [c for c in found if c]
    shown = " and ".join(printed for _, printed in cells_found)
    mean = sum(v for v in values if v is not None) / len(values)
    return cells_found[0][0], f"average of {shown}" if averaged else shown, mean


def as_figure(label: str, header: str, printed: str, value: float) -> Figure:
    """A line's figure as the working shows it: without its currency sign, and cash paid out or an
    expense as the amount paid or charged."""
    printed = printed.replace("$", "")
    if _OUTFLOW.search(label):
        value, printed = abs(value), printed.strip("()-–—")
    return Figure(label, header, value, printed)


def figures_for(question: str, rows: Sequence[str], averaged: tuple[int, ...] = ()) -> list[Figure] | None:
    """Each row's figure for the one period the question asks (the latest printed when it names
    none; the mean with the year before for a part asked as an average); none when a row has no
    figure for it or the rows' columns are of different years."""
    reads = with_headers([cells(text) for text in rows])
    if reads is None:
        return None
    year, span, how = asked_year(question), asked_span(question), asked(question)
    found = []
    for i, (label, pairs) in enumerate(reads):
        cell = cell_for(pairs, year, span, how, averaged=i in averaged)
        if cell is None:
            return None
        found.append(as_figure(label, *cell))
    years = {tuple(header_years(f.header)[:1]) for f in found if header_years(f.header)}
    return found if len(years) <= 1 else None


def period_days(figures: list[Figure]) -> int:
    """The days of the shortest period among the figures' columns (a quarter's flow over a balance)."""
    spans = [SPAN_DAYS[span] for f in figures if (span := header_span(f.header))]
    return min(spans, default=YEAR_DAYS)


def _number(value: float, decimals: int) -> str:
    return f"{value:,.{decimals}f}"


def result(formula: Formula, figures: list[Figure], decimals: int | None = None) -> tuple[str, str] | None:
    """The computed figure as it is read ("31.5%", or to the decimals asked) and its working; none
    for a division by nil."""
    values = [f.value for f in figures]
    top = sum(values[i] for i in formula.add) - sum(values[i] for i in formula.less)

    def term(i: int) -> str:
        label, printed = figures[i].label, figures[i].printed
        return f"{label} ({printed})" if printed.startswith("average") else f"{label} {printed}"

    working = " + ".join(term(i) for i in formula.add) + "".join(f" − {term(i)}" for i in formula.less)
    if not formula.over:
        printed = max((len(f.printed.rstrip(")").partition(".")[2]) for f in figures), default=0)
        return _number(top, printed), working
    bottom = sum(values[i] for i in formula.over)
    if bottom == 0:
        return None
    if len(formula.add) + len(formula.less) > 1:
        working = f"({working})"
    working += " ÷ " + " + ".join(term(i) for i in formula.over)
    share = top / bottom
    if formula.unit == "percent":
        return f"{_number(share * 100, 1 if decimals is None else decimals)}%", working
    if formula.unit == "days":
        days = period_days(figures)
        return f"{_number(share * days, 1 if decimals is None else decimals)} days", f"{working} × {days}"
    return f"{_number(share, 2 if decimals is None else decimals)}x", working


def computed_line(question: str, computation: Computation, rows: Sequence[str]) -> str | None:
    """The line that states the computed figure, its period and its working, to lead the rows it is
    computed from; none when the rows do not give one period's figures for every line."""
    figures = figures_for(question, rows, computation.averaged)
    decimals = asked_decimals(question)
    computed = result(computation.formula, figures, decimals) if figures else None
    if figures is None or computed is None:
        return None
    name = computation.name[:1].upper() + computation.name[1:]
    period = figures[0].header or FIRST_COLUMN
    figure, working = computed
    units = {row_unit(row) for row in rows}
    unit = units.pop() if len(units) == 1 else None
    if not computation.formula.over and unit:
        # An amount is stated in the unit asked; the working keeps the statement's figures and unit.
        into = asked_unit(question) or unit
        figure = f"{shown(converted(float(figure.replace(',', '')), unit, into), decimals)} {into[:-1]}"
        working = f"in {unit}, {working} = {computed[0]}"
    return f"**{name}: {figure}** ({period}), computed from the rows quoted below: {working}."


def asks_growth(question: str) -> bool:
    """The question asks by what percentage a line changed between two periods."""
    return bool(
        _GROWTH_RATE.search(question)
        or _CAGR.search(question)
        or _CHANGE.search(question)
        and ASKS_PERCENT.search(question)
    )


def asks_change(question: str) -> bool:
    """The question asks by how much a line changed between two periods it names, as a percentage
    or an amount ("What is the FY2019 - FY2020 change in operating income?")."""
    return asks_growth(question) or bool(_CHANGE.search(question)) and len(asked_years(question)) > 1


def growth_line(question: str, row: str) -> str | None:
    """The line that states a row's change between the two periods the question names (the later year
    over the earlier, or over the year before the one it names), of the span asked: as a percentage
    when the question asks a rate, else as an amount in the unit asked; none when the row has no
    column for either."""
    read = cells(row)
    years = asked_years(question)
    if read is None or not years:
        return None
    later, earlier = years[-1], years[0] if len(years) > 1 else str(int(years[-1]) - 1)
    span = asked_span(question)
    fiscal = Asked(fiscal=asked(question).fiscal)
    now, before = column(read[1], later, span, fiscal), column(read[1], earlier, span, fiscal)
    new, old = (value_of(c[1]) if c else None for c in (now, before))
    if now is None or before is None or new is None or old is None or old == 0:
        return None
    decimals = asked_decimals(question)
    periods = f"({now[0]} over {before[0]}), computed from the row quoted below"
    if not asks_growth(question):
        unit = row_unit(row)
        into = asked_unit(question) or unit
        change = converted(new - old, unit, into) if unit and into else new - old
        amount = f"{'+' if change > 0 else ''}{shown(change, decimals)}{f' {into[:-1]}' if into else ''}"
        return f"**Change: {amount}** {periods}: {read[0]} {now[1]} − {before[1]}."
    change = (new - old) / abs(old) * 100
    working = f"({read[0]} {now[1]} − {before[1]}) ÷ {before[1].strip('()$-')}"
    name, years_between = "Change", int(later) - int(earlier)
    if _CAGR.search(question) and years_between > 1 and new / old > 0:
        name, change = "Compound annual growth", ((new / old) ** (1 / years_between) - 1) * 100
        working = f"({read[0]} {now[1]} ÷ {before[1]})^(1/{years_between}) − 1"
    rate = f"{'+' if change > 0 else ''}{_number(change, 1 if decimals is None else decimals)}%"
    return f"**{name}: {rate}** {periods}: {working}."


def restated_line(question: str, row: str) -> str | None:
    """The line that states a row's figure for the period asked in the unit the question asks
    ("**Property, plant and equipment, net: 8.738 billion**" of a row in millions); none when the
    question asks no unit or the row's, or the row has no unit or no column for the period."""
    into, unit, read = asked_unit(question), row_unit(row), cells(row)
    if into is None or unit is None or into == unit or read is None:
        return None
    cell = column(read[1], asked_year(question), asked_span(question), asked(question))
    value = value_of(cell[1]) if cell else None
    if cell is None or value is None:
        return None
    figure = as_figure(read[0], cell[0], cell[1], value)
    amount = shown(converted(figure.value, unit, into), asked_decimals(question))
    period = f" ({figure.header})" if figure.header else ""
    return f"**{figure.label}: {amount} {into[:-1]}**{period}: the row quoted below prints {figure.printed}, in {unit}."
