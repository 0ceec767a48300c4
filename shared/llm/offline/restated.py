"""A row's figure asked another way than it is printed: its change between two periods, or its value
in another unit.

"By what percentage did net sales grow from fiscal 2023 to fiscal 2024?" is answered by one named row
(shared/llm/offline/rows.py) and its cells for the two periods named; "PP&E, in USD billions" by the
row's cell for the period asked, restated from the unit its table prints. The line that states either
names the row and the printed figures, so the reader checks it against the quoted row.
"""

from __future__ import annotations

import re

from shared.llm.offline.columns import Asked, asked, asked_year, asked_years, cells, column, value_of
from shared.llm.offline.computed import as_figure, number
from shared.llm.offline.periods import asked_span
from shared.text.definitions import ASKS_PERCENT
from shared.text.tables import row_unit
from shared.text.units import asked_decimals, asked_unit, converted, shown

# A change asked as a percentage: "By what percentage did net sales grow", "the year-over-year change
# in revenue (in percent)", "percent increase in operating income".
_CHANGE = re.compile(r"\b(?:grow(?:th|n)?|grew|increase[sd]?|decrease[sd]?|decline[sd]?|change[sd]?|rose|fell)\b", re.I)
# "growth" and "YoY" ask a rate: "What was the YoY growth in royalties?"
_GROWTH_RATE = re.compile(r"\bgrowth\b|\byoy\b", re.I)
# The yearly rate that compounds to the change: "the FY2019 - FY2021 total revenue CAGR".
_CAGR = re.compile(r"\bCAGR\b|\bcompound(?:ed)?\s+annual\s+growth", re.I)


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


def change_columns(question: str) -> Asked:
    """How the two columns of a change are chosen: by fiscal year and the quarter asked, never by
    the one date a question states (each column has its own)."""
    how = asked(question)
    return Asked(fiscal=how.fiscal, quarter=how.quarter)


def earlier_year(years: list[str], later: str) -> str:
    """The year a change is measured from: the earliest the question names, else the year before."""
    return years[0] if len(years) > 1 else str(int(later) - 1)


def growth_line(question: str, row: str) -> str | None:
    """The line that states a row's change between the two periods the question names (the later year
    over the earlier, or over the year before the one it names), of the span asked: as a percentage
    when the question asks a rate, else as an amount in the unit asked; none when the row has no
    column for either."""
    read = cells(row)
    years = asked_years(question)
    if read is None or not years:
        return None
    later, earlier = years[-1], earlier_year(years, years[-1])
    span = asked_span(question)
    fiscal = change_columns(question)
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
    rate = f"{'+' if change > 0 else ''}{number(change, 1 if decimals is None else decimals)}%"
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
