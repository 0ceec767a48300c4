"""A table row as one sentence: "Group: Label — Column: value · Column: value (in millions)."
(services/ingest/tables.py). The unit is the table's note ("(In millions, except per share
amounts)"), kept on each row it applies to, so that a quoted row says what its figures count.

Declared once here because ingest writes rows this way and answers, quotes and the benchmark read
them back: a row quote is not a verbatim run of the page (the page prints the label, the headers
and the figures far apart), so what must be on the page are its label and its figures.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from shared.text.fiscal import NOTE

# A figure as statements print it: 1,577 · (1,577) · $0.24 · 12% · — (nil).
FIGURE = re.compile(r"^\(?[-–—]?\$?\d[\d,]*(?:\.\d+)?\)?%?$|^[-–—]$")
LABEL_MARK = " — "
CELL_MARK = " · "
# The label runs to the first spaced dash: a label may hold a dash of its own ("Earnings (loss) per
# share attributable to Intel—basic").
ROW = re.compile(
    rf"^(?P<label>(?:(?!{LABEL_MARK}).)+?){LABEL_MARK}(?P<cells>.+?)"
    r"(?: \(in (?P<unit>thousands|millions|billions)\))?\.?$"
)


def render_row(group: str | None, label: str, cells: Sequence[tuple[str | None, str]], unit: str | None = None) -> str:
    """The row sentence; a cell without a header is its value alone, the unit (if any) follows the
    cells. Ends with a full stop so that it reads as a statement, not a heading
    (shared/text/sentences.py)."""
    head = f"{group}: {label}" if group else label
    body = CELL_MARK.join(f"{header}: {value}" if header else value for header, value in cells)
    end = "" if body.endswith((".", "?", "!")) and not unit else "."  # a cell of words may end its sentence
    return f"{head}{LABEL_MARK}{body}{f' (in {unit})' if unit else ''}{end}"


UNIT_NOTE = re.compile(r" \(in (?:thousands|millions|billions)\)(?=\.(?:\s|$))")


# The notes ingest sets on a row beyond what the page prints: its unit and a date's fiscal period.
NOTES = (UNIT_NOTE, NOTE)


def without_notes(text: str) -> str:
    """The text without the notes ingest sets on its rows: what the page prints, for its size."""
    for pattern in NOTES:
        text = pattern.sub("", text)
    return text


def without_unit(text: str) -> str:
    """The text without its rows' units, for a vector: "(in millions)" on every row says what its
    figures count, not what it is about, and would draw the rows of every table together. A date's
    fiscal period stays: "Q1 fiscal 2025" is how questions name the column."""
    return UNIT_NOTE.sub("", text)


def row_unit(text: str) -> str | None:
    """The unit a row sentence's amounts are in ("millions"), if its table noted one."""
    match = ROW.match(text.strip())
    return match.group("unit") if match and row_parts(text) else None


def row_cells(text: str) -> list[str]:
    """A row sentence's cells as written ("Three Months Ended July 1, 2023: 81,797"), without its
    label and unit; none for prose."""
    match = ROW.match(text.strip())
    return match.group("cells").split(CELL_MARK) if match and row_parts(text) else []


def row_parts(text: str) -> list[str] | None:
    """The label and figures of a row sentence (what is printed on the page), None for prose."""
    match = ROW.match(text.strip())
    if not match:
        return None
    values = [cell.rsplit(": ", 1)[-1] for cell in match.group("cells").split(CELL_MARK)]
    if not all(FIGURE.match(v) for v in values):
        return None
    return [match.group("label").split(": ")[-1], *values]


# A row of words (services/ingest/ruled_tables.py) is told from prose with a dash by its cells: at
# least two, or one under its header, each header a short label. Up to MAX_ROW_CHARS it is read as
# one piece; a longer row is written as one sentence a cell.
MAX_HEADER_WORDS = 8
MAX_ROW_CHARS = 600


def word_row_parts(text: str) -> list[str] | None:
    """The label and cell values of a row sentence whose cells are words ("Confidential — Handling
    requirements: Encrypt at rest…"), what the page prints of it; None for prose or a row of figures."""
    match = ROW.match(text.strip())
    if not match or row_parts(text) is not None:
        return None
    cells = match.group("cells").split(CELL_MARK)
    headed = [cell.split(": ", 1) for cell in cells]
    if len(cells) < 2 and (len(headed[0]) < 2 or len(headed[0][0].split()) > MAX_HEADER_WORDS):
        return None
    values = [pair[-1] if len(pair[0].split()) <= MAX_HEADER_WORDS else ": ".join(pair) for pair in headed]
    return [match.group("label").split(": ")[-1], *values]


def printed_parts(text: str) -> list[str] | None:
    """What the page prints of a row sentence, figures or words (its label and its cells' values),
    each on its own; None for prose, which the page prints as one run."""
    return row_parts(text) or word_row_parts(text)


def row_headers(text: str) -> list[str]:
    """The column headers of a row sentence's cells ("Three Months Ended July 1, 2023"); none for
    prose or a row printed without headers."""
    match = ROW.match(text.strip())
    if not match or not row_parts(text):
        return []
    return [cell.rsplit(": ", 1)[0] for cell in match.group("cells").split(CELL_MARK) if ": " in cell]


def row_head(text: str) -> str | None:
    """The group and label of a row sentence ("Operating activities: Cash generated by operating
    activities"), None for prose: what a row is about, without its headers and figures."""
    match = ROW.match(text.strip())
    return match.group("label") if match and row_parts(text) else None


PAGE_NUMBER_DIGITS = 3
PAGE_HEADER = re.compile(r"^(?:page|pages|page no\.?|pg\.?)$", re.IGNORECASE)
# A table of contents run into one sentence ("Note 1 – Basis of Presentation 67 Note 2 – Our
# Significant Accounting Policies 74 Note 3 – …"): titles each followed by a page number, the
# numbers never going down. Four in a row; a header line ("Level 1 Level 2 Level 3") has fewer.
_TITLE_AND_PAGE = re.compile(r"[A-Za-z)]\s+(\d{1,3})\s+(?=[A-Z])")
CONTENTS_RUN = 4
# One entry of a filing's contents, cut where the next entry's number opens ("Management's Discussion
# and Analysis of Financial Condition and Results of Operations 22 Item 3."): a title, its page, and
# "Item 3.", "Part II." or "Note 4." where a sentence would end.
_ENTRY_THEN_NEXT = re.compile(r"[A-Za-z)’']\s+\d{1,3}\s+(?:Item|Part|Note)\s+(?:\d{1,2}[A-C]?|[IVX]{1,4})\.$")


def contents_line(text: str) -> bool:
    """A table of contents' line ("Financial Statements — 3.", a label and a page number read as a
    row), one entry cut where the next opens, or several run together: it lists topics and answers
    nothing about them. A small number
    under a header that names no page ("Remove the appended UUID completely — Value: 36.") is a
    table's value, not a page."""
    parts = row_parts(text)
    small = parts is not None and len(parts) == 2 and parts[1].isdigit() and len(parts[1]) <= PAGE_NUMBER_DIGITS
    if small and all(PAGE_HEADER.match(header) for header in row_headers(text)):
        return True
    if _ENTRY_THEN_NEXT.search(text):
        return True
    pages = [int(m.group(1)) for m in _TITLE_AND_PAGE.finditer(text)]
    run = longest = 1
    for before, after in pairwise(pages):
        run = run + 1 if after >= before else 1
        longest = max(longest, run)
    return longest >= CONTENTS_RUN


# A statement's text as the page gives it when no table was recognised: rows run together on one
# line, each a label and its figures ("Repurchases of common stock (19,475) (20,478) Repayments of
# term debt (1,401) —"). A currency sign stands apart from its figure in many filings ("$ 828").
CURRENCY = frozenset({"$", "€", "£"})
MAX_LABEL_WORDS = 12
# Prose cites a figure now and then; a statement's run is at least a quarter figures.
MIN_FIGURE_SHARE = 0.25


def _is_figure(token: str) -> bool:
    return token in CURRENCY or FIGURE.match(token.rstrip(",")) is not None


def _footnoted(figures: list[str]) -> bool:
    """The row's first "figure" is a footnote's superscript ("Marketable equity securities 1 $ 1,421"):
    MuPDF prints it glued to the label ("securities1"), so the row as read here is not verbatim."""
    return len(figures) > 1 and len(figures[0]) == 1 and figures[0].isdigit()


def _is_year(value: str) -> bool:
    return value.isdigit() and 1900 <= int(value) <= 2100


def header_row(parts: list[str]) -> bool:
    """A row whose every value is a year ("(years) Interest Rate — 2022 · 2022"): a table's header
    line read as a row, not figures; its label is not what the page prints before them."""
    values = [v.strip("()") for v in parts[1:]]
    return bool(values) and all(map(_is_year, values))


def _is_amount(token: str) -> bool:
    """A figure a statement reports, not a date's day or year ("June 30, 2023" is no row)."""
    bare = token.rstrip(",")
    if not any(ch.isdigit() for ch in bare):
        return False
    return not (bare.isdigit() and int(bare) < 100 or _is_year(bare))


def figures_only(line: str) -> bool:
    """A line of figures and nothing else ("$ (17,518) $ (60,752) $ (6,136)")."""
    tokens = line.split()
    return bool(tokens) and all(map(_is_figure, tokens)) and any(map(_is_amount, tokens))


def lines_with_rows(lines: list[str]) -> list[str]:
    """The lines, each label-only line joined to a line of figures right after it: a page printed
    from a browser sets a table's label and its figures apart ("Free cash flow" / "$ (17,518) $
    (60,752)"), and its row is the two read together (quoted as the page's words, whitespace aside)."""
    out: list[str] = []
    for line in lines:
        before = out[-1] if out else ""
        label = before.split()
        if (
            figures_only(line)
            and 0 < len(label) <= MAX_LABEL_WORDS
            and not before.endswith(".")
            and not any(map(_is_figure, label))
        ):
            out[-1] = f"{before} {line}"
        else:
            out.append(line)
    return out


def printed_rows(sentence: str) -> list[tuple[str, str]]:
    """The rows of a sentence that is a statement's text run together, as (label, row) where the
    row is the label and its figures as printed (verbatim, so quotable); none for prose.

    Prose with figures in it ("repurchased $19.0 billion of its common stock") has fewer figures
    than a statement's run, or a run of words too long for a row's label. Words after the last
    figure (the next section's heading run in) belong to no row.
    """
    tokens = sentence.split()
    if sum(map(_is_figure, tokens)) < MIN_FIGURE_SHARE * len(tokens):
        return []
    runs: list[tuple[list[str], list[str]]] = [([], [])]
    for token in tokens:
        label, figures = runs[-1]
        if _is_figure(token) and label:
            figures.append(token)
            continue
        if figures:
            label, figures = [], []
            runs.append((label, figures))
        label.append(token)
        if len(label) > MAX_LABEL_WORDS:
            return []
    return [
        (" ".join(label), " ".join(label + figures))
        for label, figures in runs
        if any(map(_is_amount, figures)) and not _footnoted(figures)
    ]
