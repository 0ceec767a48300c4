"""A table row as one sentence: "Group: Label — Column: value · Column: value." (services/ingest/tables.py).

Declared once here because ingest writes rows this way and answers, quotes and the benchmark read
them back: a row quote is not a verbatim run of the page (the page prints the label, the headers
and the figures far apart), so what must be on the page are its label and its figures.
"""

from __future__ import annotations

import re

# A figure as statements print it: 1,577 · (1,577) · $0.24 · 12% · — (nil).
FIGURE = re.compile(r"^\(?[-–—]?\$?\d[\d,]*(?:\.\d+)?\)?%?$|^[-–—]$")
LABEL_MARK = " — "
CELL_MARK = " · "
ROW = re.compile(rf"^(?P<label>[^—]+?){LABEL_MARK}(?P<cells>.+?)\.?$")


def render_row(group: str | None, label: str, cells: list[tuple[str, str]]) -> str:
    """The row sentence; a cell without a header is its value alone. Ends with a full stop so that
    it reads as a statement, not a heading (shared/text/sentences.py)."""
    head = f"{group}: {label}" if group else label
    body = CELL_MARK.join(f"{header}: {value}" if header else value for header, value in cells)
    return f"{head}{LABEL_MARK}{body}."


def row_parts(text: str) -> list[str] | None:
    """The label and figures of a row sentence (what is printed on the page), None for prose."""
    match = ROW.match(text.strip())
    if not match:
        return None
    values = [cell.rsplit(": ", 1)[-1] for cell in match.group("cells").split(CELL_MARK)]
    if not all(FIGURE.match(v) for v in values):
        return None
    return [match.group("label").split(": ")[-1], *values]


PAGE_NUMBER_DIGITS = 3


def contents_line(text: str) -> bool:
    """A table of contents' line ("Financial Statements — 3."): a label and a page number, read as a
    row, but it lists a topic and answers nothing about it."""
    parts = row_parts(text)
    if parts is None or len(parts) != 2:
        return False
    return parts[1].isdigit() and len(parts[1]) <= PAGE_NUMBER_DIGITS
