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

from shared.llm.offline.periods import asked_quarter, asked_span, header_quarter, header_span
from shared.text.fiscal import DATE, NOTE, first_date, noted_year, parsed_date
from shared.text.formulas import Computation, Formula
from shared.text.ratios import named_ratios
from shared.text.search_query import full_year
from shared.text.tables import CELL_MARK, CURRENCY, FIGURE, ROW, row_parts, row_unit
from shared.text.units import asked_decimals, asked_unit, converted, shown

# "2024", "FY2024", "fiscal 2024"; "FY24".
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_FISCAL_YEAR = re.compile(r"\bFY\s?'?(\d{2})(?!\d)", re.I)
# A question that names its year as fiscal ("fiscal 2024", "FY24") means the filing's fiscal year.
_FISCAL = re.compile(r"\bfiscal\b|\bFY\s?'?\d{2}", re.I)
_MARGIN = re.compile(r"\bmargins?\b", re.I)
# A quarter's column headed by its number and a two-digit year: "4Q'24", "Q4'24".
_QUARTER_YEAR = re.compile(r"\b[1-4]Q\s?['’]?(\d{2})\b|\bQ[1-4]\s?['’](\d{2})\b")
# Days in a column's period, for a "days" figure computed from a flow of that period.
SPAN_DAYS = {"Three Months": 91, "Six Months": 182, "Nine Months": 273, "Twelve Months": 365}
YEAR_DAYS = 365
# A line of cash paid out or of an expense may be printed negative ("Payments for acquisition of
# property, plant and equipment (9,447)", Amazon's "Provision for income taxes (2,706)"); a figure
# computed from it uses the amount paid or charged.
_OUTFLOW = re.compile(r"\b(?:payments?|purchases?|paid|repurchases?|dividends|provision|expenses?|costs?)\b", re.I)
FIRST_COLUMN = "the first column of each row"


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
    if noted:
        return [noted]
    return _YEAR.findall(header) or [full_year(a or b) for a, b in _QUARTER_YEAR.findall(header)]


@dataclass(frozen=True)
class Asked:
    """How a question names its period beyond the year: the one date it states ("as of December 31,
    2022"), whether it names the year as fiscal, and the quarter it names by number."""

    day: date | None = None
    fiscal: bool = False
    quarter: int | None = None


def asked(question: str) -> Asked:
    days = [d for m in DATE.finditer(question) if (d := parsed_date(m))]
    return Asked(days[0] if len(set(days)) == 1 else None, bool(_FISCAL.search(question)), asked_quarter(question))


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


def headed(text: str) -> bool:
    """The row says which column each of its figures is in."""
    read = cells(text)
    return bool(read and any(header for header, _ in read[1]))


def dated(text: str, beside: Sequence[str]) -> bool:
    """The row says which period each figure is of, or a row with headers beside it (in its passage)
    has as many cells to lend it theirs."""
    read = cells(text)
    if read is None or headed(text):
        return read is not None
    return any(len(other[1]) == len(read[1]) for t in beside if (other := cells(t)))


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
    printed = [fit for fit in fits if year in _YEAR.findall(NOTE.sub("", fit[0]))]
    first, then = (of_year, printed) if how.fiscal else (printed, of_year)
    return next(iter(first or then), None)


def with_headers(reads: list[Read | None], beside: Sequence[Sequence[str]] = ()) -> list[Read] | None:
    """The rows read, a row printed without headers taking those of a row with as many cells: first of
    a row printed beside it (`beside`: each row's passage's rows with headers), else of the rows read
    (its table's, read as a table where the printed one was not: "Provision for income taxes (2,306)
    (2,706)" beside "Income before income taxes — Three Months Ended …: 12,189 · …")."""
    if any(read is None for read in reads):
        return None
    known = [read for read in reads if read]
    headed = [[h for h, _ in pairs] for _, pairs in known if all(h for h, _ in pairs)]
    out = []
    for i, (label, pairs) in enumerate(known):
        near = [[h for h, _ in read[1]] for text in (beside[i] if i < len(beside) else ()) if (read := cells(text))]
        borrowed = next((h for h in [*near, *headed] if len(h) == len(pairs) and all(h)), None)
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
    found = [column(pairs, years[0], span, how)]
    if averaged:
        # The year before is asked by its year alone, of the other columns (a fiscal year noted beside
        # the next calendar year's date is not its own year before).
        others = [pair for pair in pairs if pair != found[0]]
        found.append(column(others, years[1], span, Asked(fiscal=how.fiscal, quarter=how.quarter)))
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


def figures_for(
    question: str,
    rows: Sequence[str],
    averaged: tuple[int, ...] = (),
    year: str | None = None,
    beside: Sequence[Sequence[str]] = (),
) -> list[Figure] | None:
    """Each row's figure for the one period the question asks (or for `year`; the latest printed
    when it names none; the mean with the year before for a part asked as an average); none when a
    row has no figure for it or the rows' columns are of different years."""
    reads = with_headers([cells(text) for text in rows], beside)
    if reads is None:
        return None
    asked_in, span, how = asked_year(question), asked_span(question), asked(question)
    if year is not None and year != asked_in:
        # Another year of a figure averaged over years is asked by its year alone.
        how = Asked(fiscal=how.fiscal, quarter=how.quarter)
    found = []
    for i, (label, pairs) in enumerate(reads):
        cell = cell_for(pairs, year or asked_in, span, how, averaged=i in averaged)
        if cell is None:
            return None
        found.append(as_figure(label, *cell))
    years = {tuple(header_years(f.header)[:1]) for f in found if header_years(f.header)}
    return found if len(years) <= 1 else None


def period_days(figures: list[Figure]) -> int:
    """The days of the shortest period among the figures' columns (a quarter's flow over a balance)."""
    spans = [SPAN_DAYS[span] for f in figures if (span := header_span(f.header))]
    return min(spans, default=YEAR_DAYS)


def number(value: float, decimals: int) -> str:
    """A figure with thousands separators, to the decimals given."""
    return f"{value:,.{decimals}f}"


def value(formula: Formula, figures: list[Figure]) -> float | None:
    """What the formula comes to on the figures, in its unit (a percentage as 31.5); none for a
    division by nil."""
    values = [f.value for f in figures]
    top = sum(values[i] for i in formula.add) - sum(values[i] for i in formula.less)
    factor = formula.factor or 1
    if not formula.over:
        return top * factor
    bottom = sum(values[i] for i in formula.over) - sum(values[i] for i in formula.over_less)
    if bottom == 0:
        return None
    share = top / bottom * factor
    if formula.unit == "days" and formula.factor is None:
        return share * period_days(figures)
    return share * 100 if formula.unit == "percent" else share


def working(formula: Formula, figures: list[Figure]) -> str:
    """The arithmetic in the figures as the rows print them: "(Operating income 123,216 + …) ÷ …"."""

    def term(i: int) -> str:
        label, printed = figures[i].label, figures[i].printed
        return f"{label} ({printed})" if printed.startswith("average") else f"{label} {printed}"

    def terms(plus: tuple[int, ...], minus: tuple[int, ...]) -> str:
        text = " + ".join(term(i) for i in plus) + "".join(f" − {term(i)}" for i in minus)
        return f"({text})" if formula.over and len(plus) + len(minus) > 1 else text

    text = terms(formula.add, formula.less)
    if formula.over:
        text += f" ÷ {terms(formula.over, formula.over_less)}"
    days = formula.unit == "days" and formula.factor is None
    factor = period_days(figures) if days else formula.factor
    return f"{text} × {factor:g}" if factor else text


def shown_value(
    formula: Formula, figure: float, figures: list[Figure], decimals: int | None, *, as_percent: bool = False
) -> str:
    """The computed figure as it is read: "31.5%", "119.7 days", "1.87x", or an amount with as many
    decimals as its rows print (or as asked); `as_percent`: a quotient below one also as a percentage
    ("0.67x (67.3%)")."""
    if not formula.over:
        printed = max((len(f.printed.rstrip(")").partition(".")[2]) for f in figures), default=0)
        return number(figure, printed if decimals is None else decimals)
    suffix = {"percent": "%", "days": " days"}.get(formula.unit, "x")
    default = 2 if formula.unit == "times" else 1
    shown_figure = f"{number(figure, default if decimals is None else decimals)}{suffix}"
    # A quotient the question defines without its unit, below one, is as often read as a percentage
    # ("an efficiency ratio of 67.3%").
    if as_percent and formula.unit == "times" and formula.factor is None and abs(figure) < 1:
        shown_figure += f" ({number(figure * 100, 1)}%)"
    return shown_figure


def plausible(computation: Computation, figure: float) -> bool:
    """A share of a whole is between nothing and all of it, and a margin is at most all of the sales:
    outside that, the rows read are not the lines asked (a division's net revenue for the company's)."""
    if computation.share:
        return 0 <= figure <= 100
    return not (computation.formula.unit == "percent" and _MARGIN.search(computation.name) and figure > 100)


def sentence_start(name: str) -> str:
    """The name to open a line: capitalised, unless its first word is written with a capital inside
    ("iPhone as a share of total net sales")."""
    first = name.split(" ", 1)[0]
    return name if any(c.isupper() for c in first[1:]) else name[:1].upper() + name[1:]


def averaged_over(question: str, years: int, rows: Sequence[str]) -> list[str]:
    """The years a figure averaged over `years` years is computed for, earliest first: those ending in
    the latest year the question names, else the latest its rows print."""
    reads = [read for text in rows if (read := cells(text))]
    printed = [y for _, pairs in reads for header, _ in pairs for y in header_years(header)]
    last = asked_year(question) or max(printed, default=None)
    return [str(int(last) - i) for i in reversed(range(years))] if last else []


def averaged_line(
    question: str, computation: Computation, rows: Sequence[str], beside: Sequence[Sequence[str]] = ()
) -> str | None:
    """The line that states a figure averaged over years ("the 3 year average of capex as a % of
    revenue"): its value each year, with that year's working, and their mean; none without every
    year's figures."""
    years = averaged_over(question, computation.years, rows)
    formula, decimals = computation.formula, asked_decimals(question)
    each = [(year, figures_for(question, rows, computation.averaged, year, beside)) for year in years]
    values = [(year, figures, value(formula, figures)) for year, figures in each if figures]
    if not years or len(values) != len(years) or any(v is None or not plausible(computation, v) for _, _, v in values):
        return None
    mean = sum(v for _, _, v in values if v is not None) / len(values)
    name = sentence_start(computation.name)
    shown_mean = shown_value(formula, mean, values[0][1], decimals)
    yearly = "; ".join(
        f"{year}: {shown_value(formula, v, figures, decimals)} = {working(formula, figures)}"
        for year, figures, v in values
        if v is not None
    )
    return (
        f"**{name}, average of {len(years)} years: {shown_mean}** ({years[0]}–{years[-1]}), computed from the rows"
        f" quoted below: {yearly}."
    )


def computed_line(
    question: str, computation: Computation, rows: Sequence[str], beside: Sequence[Sequence[str]] = ()
) -> str | None:
    """The line that states the computed figure, its period and its working, to lead the rows it is
    computed from (`beside`: each row's passage's rows with headers, for one printed without); none
    when the rows do not give one period's figures for every line."""
    if computation.years > 1:
        return averaged_line(question, computation, rows, beside)
    figures = figures_for(question, rows, computation.averaged, beside=beside)
    decimals = asked_decimals(question)
    computed = value(computation.formula, figures) if figures else None
    if figures is None or computed is None or not plausible(computation, computed):
        return None
    name = sentence_start(computation.name)
    period = figures[0].header or FIRST_COLUMN
    # A quotient the question defines under no ratio's name may be meant as a percentage.
    as_percent = computation.defined and not named_ratios(computation.name)
    figure = shown_value(computation.formula, computed, figures, decimals, as_percent=as_percent)
    working_shown = working(computation.formula, figures)
    units = {row_unit(row) for row in rows}
    unit = units.pop() if len(units) == 1 else None
    if not computation.formula.over and unit:
        # An amount is stated in the unit asked; the working keeps the statement's figures and unit.
        into = asked_unit(question) or unit
        figure = f"{shown(converted(computed, unit, into), decimals)} {into[:-1]}"
        working_shown = f"in {unit}, {working_shown} = {shown_value(computation.formula, computed, figures, None)}"
    return f"**{name}: {figure}** ({period}), computed from the rows quoted below: {working_shown}."
