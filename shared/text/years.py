"""The years a question names: "2024", "FY2024", "fiscal 2024", "FY24".

Read by the search (a change between two years, shared/text/changes.py) and by the offline engine
(which column a figure is of, shared/llm/offline/columns.py), so declared once here.
"""

from __future__ import annotations

import re

from shared.text.search_query import full_year

YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_FISCAL_YEAR = re.compile(r"\bFY\s?'?(\d{2})(?!\d)", re.I)


# A table printed without its grid heads its columns with a line of years only ("2024 2023 2022",
# "Fiscal 2024 Fiscal 2023 (In thousands)"): each row printed under it has a figure for each year.
_UNIT_NOTE = re.compile(r"\([^()]*\)")
_YEAR_WORDS = frozenset({"fiscal", "fy", "year", "years"})


def column_years(line: str) -> list[str] | None:
    """The years, in order, of a line that heads a table's columns with them and nothing else; None
    for any other line."""
    tokens = _UNIT_NOTE.sub(" ", line).replace("$", " ").split()
    years = [t for t in tokens if YEAR.fullmatch(t)]
    rest = [t for t in tokens if not YEAR.fullmatch(t)]
    return years if len(years) >= 2 and all(t.lower() in _YEAR_WORDS for t in rest) else None


def asked_years(question: str) -> list[str]:
    """The years the question names ("fiscal 2024", "FY24"), earliest first, once each."""
    return sorted(set(YEAR.findall(question) + [full_year(y) for y in _FISCAL_YEAR.findall(question)]))


def asked_year(question: str) -> str | None:
    """The latest year the question names, if any."""
    years = asked_years(question)
    return years[-1] if years else None
