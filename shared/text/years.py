"""The years a question names: "2024", "FY2024", "fiscal 2024", "FY24".

Read by the search (a change between two years, shared/text/changes.py) and by the offline engine
(which column a figure is of, shared/llm/offline/columns.py), so declared once here.
"""

from __future__ import annotations

import re

from shared.text.search_query import full_year

YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_FISCAL_YEAR = re.compile(r"\bFY\s?'?(\d{2})(?!\d)", re.I)


def asked_years(question: str) -> list[str]:
    """The years the question names ("fiscal 2024", "FY24"), earliest first, once each."""
    return sorted(set(YEAR.findall(question) + [full_year(y) for y in _FISCAL_YEAR.findall(question)]))


def asked_year(question: str) -> str | None:
    """The latest year the question names, if any."""
    years = asked_years(question)
    return years[-1] if years else None
