"""A change asked of one line between two periods, and the words its line is searched for by.

"By what percentage did net sales grow from fiscal 2023 to fiscal 2024?" is answered from one row
with a column for each period (shared/llm/offline/restated.py). The question's own search may bring
only the page's text, whose row is printed without headers, so the line is also searched for among
the chunks that hold rows (services/actions/line_search.py), by its words alone: the periods and the
change's words are in every row of a table of quarters ("Y/Y % Q3 2023") and would rank those first.
"""

from __future__ import annotations

import re

from shared.text.definitions import ASKS_PERCENT
from shared.text.search_query import retrieval_query
from shared.text.years import YEAR, asked_years

# A change asked as a percentage: "By what percentage did net sales grow", "the year-over-year change
# in revenue (in percent)", "percent increase in operating income".
_CHANGE = re.compile(r"\b(?:grow(?:th|n)?|grew|increase[sd]?|decrease[sd]?|decline[sd]?|change[sd]?|rose|fell)\b", re.I)
# "growth" and "YoY" ask a rate: "What was the YoY growth in royalties?"
_GROWTH_RATE = re.compile(r"\bgrowth\b|\byoy\b", re.I)
# The yearly rate that compounds to the change: "the FY2019 - FY2021 total revenue CAGR".
CAGR = re.compile(r"\bCAGR\b|\bcompound(?:ed)?\s+annual\s+growth", re.I)
# What a change says beyond its line: the periods and how it is measured.
_PERIOD_OR_CHANGE = re.compile(
    r"\b(?:"
    + YEAR.pattern
    + r"|FY\s?'?\d{2,4}|Q[1-4]|(?:first|second|third|fourth)\s+quarter|fiscal(?:\s+year)?|years?|"
    r"quarters?|percent(?:age)?|compared|versus|vs|year-over-year|by\s+what|how\s+much)\b|"
    + _CHANGE.pattern
    + "|"
    + _GROWTH_RATE.pattern
    + "|"
    + CAGR.pattern,
    re.I,
)


def asks_growth(question: str) -> bool:
    """The question asks by what percentage a line changed between two periods."""
    return bool(
        _GROWTH_RATE.search(question)
        or CAGR.search(question)
        or _CHANGE.search(question)
        and ASKS_PERCENT.search(question)
    )


def asks_change(question: str) -> bool:
    """The question asks by how much a line changed between two periods it names, as a percentage
    or an amount ("What is the FY2019 - FY2020 change in operating income?")."""
    return asks_growth(question) or bool(_CHANGE.search(question)) and len(asked_years(question)) > 1


def changed_line_query(question: str) -> str:
    """The search words of the line a change is asked of: the question's, in the statements' words,
    without its periods and the change's own words."""
    return " ".join(_PERIOD_OR_CHANGE.sub(" ", retrieval_query(question, statements=False)).split())
