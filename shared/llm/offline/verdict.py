"""A yes/no question's verdict, decided by the figures that answer it and stated first.

"Does Apple have positive working capital based on FY2024 data?" is answered "**No.** Working capital
was -23,405 million (September 28, 2024), below zero.", then the working from the rows quoted below;
"Does it have an improving gross margin profile?" by the margin of the period asked and of the one
before, each with its working. The figure is the one the question names: a ratio computed from its
lines (shared/llm/offline/computed.py), else the best named row's cell. What is asked of it is read
in shared/text/verdicts.py. Nothing is said when a figure of either period is missing, or when it
sits exactly on the bar: the rows are quoted as for any amount question.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from shared.llm.offline.columns import asked, cells, column, header_years, value_of
from shared.llm.offline.computed import (
    FIRST_COLUMN,
    as_figure,
    computed_figure,
    number,
    outflow,
    sentence_start,
    shown_value,
    working,
)
from shared.llm.offline.restated import change_columns, earlier_year
from shared.text.fiscal import DATE, parsed_date
from shared.text.formulas import Computation
from shared.text.periods import asked_quarters, asked_span
from shared.text.tables import row_unit
from shared.text.units import asked_decimals
from shared.text.verdicts import Judgement
from shared.text.years import asked_year, asked_years

# A column of a period's flow ("Three Months Ended …", "Years ended …", "Q2 2026"), not a balance's
# date: what was recorded, paid or raised in a period is a flow.
_FLOW_COLUMN = re.compile(r"\b(?:ended|ending|months|weeks|quarters?)\b|\bQ[1-4]\b|\b[1-4]Q\b", re.I)
# A line that is itself an event of a period, never a balance: its column may be headed by a bare year
# (a note's "Impairment of goodwill — 2024: — · 2022: 362,492").
_FLOW_LINE = re.compile(
    r"\b(?:impairments?|restructuring\s+charges?|proceeds|repurchases?|dividends\s+(?:paid|declared))\b",
    re.I,
)


@dataclass(frozen=True)
class Measured:
    """The figure judged for one period: its name, value, how it reads ("46.2%", "-23,405 million"),
    its column's header, and its working (empty for a figure the filing prints); a line paid out is
    judged on the amount paid, as it is shown."""

    name: str
    value: float
    shown: str
    header: str
    working: str = ""
    percent: bool = False
    # A line paid out or charged (its amount, whatever sign the filing prints it with): it has no sign
    # to judge ("(444)" of "Provision for (benefit from) income taxes" is a benefit, Amazon's "(2,306)"
    # a charge).
    outflow: bool = False


Measure = Callable[[str | None], "Measured | None"]
"""The figure judged for a year (the period the question asks where none)."""


def ratio_measure(
    question: str, computation: Computation, rows: Sequence[str], beside: Sequence[Sequence[str]] = ()
) -> Measure:
    """The computed figure for a year: the question's ratio or difference, from its lines' rows."""
    units = {row_unit(row) for row in rows}
    unit = units.pop() if len(units) == 1 else None

    def measure(year: str | None) -> Measured | None:
        found = computed_figure(question, computation, rows, beside, year)
        if found is None:
            return None
        value, figures = found
        formula = computation.formula
        shown = shown_value(formula, value, figures, asked_decimals(question))
        if not formula.over and unit:
            shown = f"{shown} {unit[:-1]}"
        header = figures[0].header or FIRST_COLUMN
        name = sentence_start(computation.name)
        return Measured(name, value, shown, header, working(formula, figures), formula.unit == "percent")

    return measure


def row_measure(question: str, row: str) -> Measure:
    """The row's figure for a year, as it prints it."""
    read = cells(row)
    unit = row_unit(row)

    def measure(year: str | None) -> Measured | None:
        if read is None:
            return None
        how = asked(question) if year is None else change_columns(question)
        cell = column(read[1], year or asked_year(question), asked_span(question), how)
        # A percentage's cell too ("46.2%" is 46.2), as a comparison reads it.
        value = value_of(cell[1].removesuffix("%")) if cell else None
        if cell is None or value is None:
            return None
        percent = cell[1].endswith("%")
        figure = as_figure(read[0], cell[0], cell[1], value) if not (percent or value == 0) else None
        shown = f"{figure.printed}{f' {unit[:-1]}' if unit else ''}" if figure else cell[1]
        header = cell[0] or FIRST_COLUMN
        judged = figure.value if figure else value
        return Measured(read[0], judged, shown, header, percent=percent, outflow=outflow(read[0]))

    return measure


def _bar_shown(judged: Judgement, percent: bool) -> str:
    return f"{judged.bar:g}%" if judged.percent or percent else f"{number(judged.bar, 1)}x"


def _measured_against(judged: Judgement, figure: Measured) -> float:
    """The figure in the bar's terms: a quotient against a percentage bar as a percentage."""
    return figure.value * 100 if judged.percent and not figure.percent else figure.value


def _worked(figures: Sequence[Measured]) -> str:
    shown = [f for f in figures if f.working]
    if not shown:
        return ""
    each = "; ".join(f"{f.header}: {f.working}" if len(shown) > 1 else f.working for f in shown)
    return f" Computed from the rows quoted below: {each}."


def periods_told(question: str) -> bool:
    """The two periods of a trend are told by the years the question names (the later, and the
    earlier or the year before): not where it names more dates or quarters than years ("from the
    twelve months ended June 30, 2024 to those ended September 30, 2024" is sequential)."""
    dates = {day for m in DATE.finditer(question) if (day := parsed_date(m))}
    return max(len(dates), len(asked_quarters(question))) <= max(len(asked_years(question)), 1)


def verdict_line(question: str, judged: Judgement, measure: Measure) -> str | None:
    """The line that opens the answer: the verdict, the figure(s) that decide it and their working;
    none when a period's figure is missing or the figure is exactly on the bar or unchanged."""
    now = measure(None)
    if now is None:
        return None
    if judged.kind == "trend":
        if not periods_told(question):
            return None
        years = header_years(now.header) or asked_years(question)[-1:]
        before = measure(earlier_year(asked_years(question), years[0])) if years else None
        if before is None or before.header == now.header or before.value == now.value:
            return None
        rose = now.value > before.value
        verdict = "Yes" if rose == judged.up else "No"
        moved = "rose" if rose else "fell"
        said = f"{now.name} {moved} from {before.shown} ({before.header}) to {now.shown} ({now.header})"
        return f"**{verdict}.** {said}.{_worked([now, before])}"
    if judged.kind == "occurred":
        if now.working or not (_FLOW_COLUMN.search(now.header) or _FLOW_LINE.search(now.name)):
            return None
        if now.value == 0:
            return f"**No.** {now.name}: {now.shown} ({now.header}), nil in that period."
        return f"**Yes.** {now.name}: {now.shown} ({now.header})."
    value = _measured_against(judged, now)
    # A printed amount is measured against nothing but zero: "at least 3.0x" is a ratio's bar.
    if value == judged.bar or judged.kind == "bar" and not (now.working or now.percent) or now.outflow:
        return None
    above = value > judged.bar
    verdict = "Yes" if above == judged.up else "No"
    if judged.kind == "sign":
        side = "above zero" if above else "below zero"
    else:
        rule = ", the usual rule of thumb" if judged.convention else ""
        side = f"{'above' if above else 'below'} {_bar_shown(judged, now.percent)}{rule}"
    return f"**{verdict}.** {now.name} was {now.shown} ({now.header}), {side}.{_worked([now])}"
