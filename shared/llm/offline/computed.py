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

from shared.llm.offline.columns import (
    Asked,
    asked,
    cells,
    column,
    header_years,
    value_of,
    with_headers,
)
from shared.text.formulas import Computation, Formula, written
from shared.text.periods import asked_span, header_span
from shared.text.ratios import named_ratios
from shared.text.tables import row_unit
from shared.text.units import asked_decimals, asked_unit, converted, shown
from shared.text.years import asked_year

_MARGIN = re.compile(r"\bmargins?\b", re.I)
# Days in a column's period, for a "days" figure computed from a flow of that period.
SPAN_DAYS = {"Three Months": 91, "Six Months": 182, "Nine Months": 273, "Twelve Months": 365}
YEAR_DAYS = 365
# A line of cash paid out or of an expense may be printed negative ("Payments for acquisition of
# property, plant and equipment (9,447)", Amazon's "Provision for income taxes (2,706)"); a figure
# computed from it uses the amount paid or charged.
_OUTFLOW = re.compile(
    r"\b(?:payments?|purchases?|paid|repurchases?|dividends|provision|expenses?|costs?|spending|expenditures?)\b", re.I
)
# A result before a charge is no charge: "Income (loss) before provision for income taxes" may be a loss.
_BEFORE_CHARGE = re.compile(r"\b(?:income|earnings|loss|profit)\b.*\bbefore\b", re.I)
FIRST_COLUMN = "the first column of each row"


@dataclass(frozen=True)
class Figure:
    """One line's figure for the period computed: its row's label, the column's header, the value and
    how it is shown in the working (as printed; cash paid out as the amount paid)."""

    label: str
    header: str
    value: float
    printed: str


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


def outflow(label: str) -> bool:
    """The line is cash paid out or an expense, whose printed sign is the filing's convention."""
    return bool(_OUTFLOW.search(label)) and not _BEFORE_CHARGE.search(label)


def as_figure(label: str, header: str, printed: str, value: float) -> Figure:
    """A line's figure as the working shows it: without its currency sign, and cash paid out or an
    expense as the amount paid or charged."""
    printed = printed.replace("$", "")
    if outflow(label):
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
    """The arithmetic in the figures as the rows print them: "(Operating income 123,216 + …) ÷ …",
    its factor last (a flow's period in days where the figure is days and the question gave none)."""

    def term(figure: Figure) -> str:
        label, printed = figure.label, figure.printed
        return f"{label} ({printed})" if printed.startswith("average") else f"{label} {printed}"

    text = written(formula, [term(f) for f in figures])
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


def computed_figure(
    question: str,
    computation: Computation,
    rows: Sequence[str],
    beside: Sequence[Sequence[str]] = (),
    year: str | None = None,
) -> tuple[float, list[Figure]] | None:
    """What the computation comes to for the period asked (or `year`), and the figures it is computed
    from; none when a row has no figure for it, or the result is not a figure of the kind asked."""
    figures = figures_for(question, rows, computation.averaged, year, beside)
    computed = value(computation.formula, figures) if figures else None
    if figures is None or computed is None or not plausible(computation, computed):
        return None
    return computed, figures


def computed_line(
    question: str, computation: Computation, rows: Sequence[str], beside: Sequence[Sequence[str]] = ()
) -> str | None:
    """The line that states the computed figure, its period and its working, to lead the rows it is
    computed from (`beside`: for each row, the rows with headers it may take them from when it was
    printed without; figure_lead.line_rows); none when the rows do not give one period's figures for
    every line."""
    if computation.years > 1:
        return averaged_line(question, computation, rows, beside)
    found = computed_figure(question, computation, rows, beside)
    if found is None:
        return None
    computed, figures = found
    decimals = asked_decimals(question)
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
