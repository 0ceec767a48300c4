"""The scale a statement prints its amounts in, and the scale and precision a question asks.

A statement prints "Property, plant and equipment, net 8,738" under "(In millions, except per share
amounts)"; an analyst asks for "net PP&E … in USD billions". The figure asked is 8.738: the page's
figure in the unit asked. Ingest keeps each table row's unit (services/ingest/tables.py), and the
answer restates the row's figure in the unit the question asks (shared/llm/offline/in_unit.py).
"""

from __future__ import annotations

import re

SCALES = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}
_SCALE = r"(thousands|millions|billions)"
# How a table notes its unit: "(In millions, except per share amounts)", "($ in millions)",
# "(Dollars in thousands)", "(in millions of U.S. dollars)", "Millions of dollars", "(Millions)".
# Only at the start of a note, so that prose ("hundreds of millions of dollars") is no unit.
_NOTE = re.compile(
    rf"^\(?\s*(?:unaudited[;,]?\s*)?(?:(?:U\.?S\.?\s*)?\$\s*|(?:U\.?S\.?\s+)?dollars\s+|amounts\s+|figures\s+)?in\s+{_SCALE}\b"
    rf"|^\(?\s*{_SCALE}(?:\s+of\s+(?:U\.?S\.?\s+)?dollars)?\s*(?:\)|,|$)",
    re.I,
)
# A line that ends with its unit and a colon: a table's introduction ("… for the nine months ended
# June 25, 2022 (in millions):") or a group of rows ("Average daily shipments (in thousands):").
_INTRO = re.compile(rf"\(\s*(?:\$\s*)?in\s+{_SCALE}\b[^()]*\)\s*:\s*$", re.I)
# A unit in parentheses anywhere else names one column's ("Aggregate Fair Value (in millions)" beside
# "Number of RSUs (in thousands)"): the rows under it have no one unit.
_COLUMN_UNIT = re.compile(rf"\(\s*(?:\$\s*)?in\s+{_SCALE}\b", re.I)
# The rows of a table in millions that are not in millions: per-share amounts, share counts,
# percentages and ratios ("except per share amounts", "shares … reflected in thousands").
_NOT_AMOUNT = re.compile(
    r"\bper\s+(?:\w+\s+)?share\b|\bshares\b|\bshare\s+count\b|\bEPS\b|\bratios?\b|\bmargins?\b|%|"
    r"\bpercent(?:age)?\b|\bemployees\b|\bdays\b|\bheadcount\b",
    re.I,
)
# "in USD billions", "(in USD millions)", "Answer in USD thousands", "in billions of dollars",
# "in $ millions", "in millions".
_ASKED = re.compile(
    rf"\bin\s+(?:(?:USD|US\s?\$|U\.S\.\s+dollars|\$)\s*)?{_SCALE}\b|\b(?:USD|US\$|\$)\s*{_SCALE}\b", re.I
)


_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "zero": 0}
# "Round your answer to two decimal places", "rounded to 1 decimal", "to the nearest whole number".
_ROUND = re.compile(
    r"\bround(?:ed|ing)?\b[^.?]*?\bto\s+(?:the\s+nearest\s+)?(\d|one|two|three|four|zero)\s+decimal", re.I
)
_WHOLE = re.compile(r"\bround(?:ed|ing)?\b[^.?]*?\bto\s+the\s+nearest\s+(?:whole\s+)?(?:number|integer)\b", re.I)


def _unit(match: re.Match[str] | None) -> str | None:
    return next(group for group in match.groups() if group).lower() if match else None


def printed_unit(line: str) -> str | None:
    """The unit a table's note says its amounts are in ("millions"), if the line is such a note."""
    return _unit(_NOTE.search(line.strip()))


def group_unit(line: str) -> str | None:
    """The unit a line ending in a colon gives the rows after it, up to the next group."""
    return _unit(_INTRO.search(line.strip()))


def column_unit(line: str) -> bool:
    """The line names a unit in parentheses that is not a note, or several: the units of columns
    ("(in thousands)  (in millions)" under "Number of RSUs" and "Aggregate Fair Value")."""
    found = len(_COLUMN_UNIT.findall(line))
    return found > 1 or found == 1 and printed_unit(line) is None and group_unit(line) is None


def unit_applies(label: str) -> bool:
    """A row's amounts are in its table's unit unless it counts shares or gives per-share amounts,
    percentages or ratios (the exceptions every note lists)."""
    return _NOT_AMOUNT.search(label) is None


def asked_unit(question: str) -> str | None:
    """The unit the question asks amounts in ("billions"), if it names one."""
    match = _ASKED.search(question)
    return next(group for group in match.groups() if group).lower() if match else None


def asked_decimals(question: str) -> int | None:
    """The decimals the question asks a figure rounded to ("Round your answer to two decimal
    places" is 2), if it asks any."""
    if _WHOLE.search(question):
        return 0
    match = _ROUND.search(question)
    if not match:
        return None
    word = match.group(1).lower()
    return int(word) if word.isdigit() else _WORDS[word]


def converted(value: float, unit: str, into: str) -> float:
    """An amount printed in `unit` restated in `into`: 8,738 millions is 8.738 billions."""
    return value * SCALES[unit] / SCALES[into]


def shown(value: float, decimals: int | None = None) -> str:
    """A restated amount as read: exact to three decimals unless a rounding is asked, without
    trailing zeros (8.738; 95; 331.0 when one decimal is asked)."""
    if decimals is not None:
        return f"{value:,.{decimals}f}"
    text = f"{value:,.3f}".rstrip("0").rstrip(".")
    return text or "0"
