"""A row's figure asked another way than it is printed: its change between two periods, or its value
in another unit.

"By what percentage did net sales grow from fiscal 2023 to fiscal 2024?" is answered by one named row
(shared/llm/offline/rows.py) and its cells for the two periods named; "PP&E, in USD billions" by the
row's cell for the period asked, restated from the unit its table prints. The line that states either
names the row and the printed figures, so the reader checks it against the quoted row.
"""

from __future__ import annotations

from shared.llm.offline.columns import Asked, asked, cells, column, value_of
from shared.llm.offline.computed import as_figure, number
from shared.text.changes import CAGR, asks_growth
from shared.text.periods import asked_span
from shared.text.tables import row_unit
from shared.text.units import asked_decimals, asked_unit, converted, shown
from shared.text.years import asked_year, asked_years


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
    if now is None or before is None:
        return None
    new, old = value_of(now[1]), value_of(before[1])
    if new is None or old is None:
        return None
    # Cash paid out or an expense printed in parentheses ("(22,620)") grew when more was paid.
    late, early = as_figure(read[0], *now, new), as_figure(read[0], *before, old)
    new, old = late.value, early.value
    if old == 0:
        return None
    decimals = asked_decimals(question)
    periods = f"({now[0]} over {before[0]}), computed from the row quoted below"
    if not asks_growth(question):
        unit = row_unit(row)
        into = asked_unit(question) or unit
        change = converted(new - old, unit, into) if unit and into else new - old
        amount = f"{'+' if change > 0 else ''}{shown(change, decimals)}{f' {into[:-1]}' if into else ''}"
        return f"**Change: {amount}** {periods}: {read[0]} {late.printed} − {early.printed}."
    change = (new - old) / abs(old) * 100
    working = f"({read[0]} {late.printed} − {early.printed}) ÷ {early.printed.strip('()$-')}"
    name, years_between = "Change", int(later) - int(earlier)
    if CAGR.search(question) and years_between > 1 and new / old > 0:
        name, change = "Compound annual growth", ((new / old) ** (1 / years_between) - 1) * 100
        working = f"({read[0]} {late.printed} ÷ {early.printed})^(1/{years_between}) − 1"
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
