"""Table rows of a page, each with its row label and column headers, from MuPDF's word positions.

Financial statements and schedules print a row as a label at the left and figures in aligned
columns, under header lines ("Three Months Ended" / "July 1," / "2023"). MuPDF's reading-order
text gives each figure as its own block, far from its label and headers, so neither retrieval nor
an answer can say what "(1,577)" is. Here the words of a page are grouped into visual lines; a
line whose label is followed, after a tabular gap, only by figures is a row; the figures' right
edges define the columns; the lines just above a table's first row that lie over the columns are
its headers. A row is rendered as one sentence:

    Purchases of property, plant and equipment — Nine Months Ended July 1, 2023: (8,796) · …

so it is found by its label's words and quoted whole (shared/text/tables.py reads it back).
Word positions cost a few milliseconds a page; PyMuPDF's `find_tables` costs about a second a
page on a filing's statements and glues words together ("Beginningbalances"), so it is not used.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import pymupdf

from shared.text.line_breaks import rejoined
from shared.text.tables import FIGURE, render_row
from shared.text.units import column_unit, group_unit, printed_unit, unit_applies

CURRENCY = {"$", "€", "£", "%", ")"}
LINE_TOLERANCE = 3.0  # points between the vertical centres of words on one printed line
TABULAR_GAP = 18.0  # points between a label and its first figure (prose has single spaces)
PHRASE_GAP = 6.0  # points between words of one header phrase
COLUMN_GAP = 12.0  # points between the right edges of figures of different columns
MAX_HEADER_LINES = 5
HEADER_SLACK = 30.0  # points a centred header may reach left of the first column
MIN_ROWS = 3
MARK_GAP = re.compile(r" ([®™©])")
FOOTNOTE_MARK = re.compile(r"^\(\d{1,2}\)$")
FOOTNOTE_MARKS = re.compile(r"(?:\s*\(\d{1,2}\))+$")
WRAPPED_WORDS = 8
MAX_LABEL_LINES = 3
# "(in millions)", "(unaudited)" printed over the columns: a note on the table or a column, not a
# header (one that reaches left of the columns ends the header, as a title does).
UNIT_NOTE = re.compile(r"^\([^()]*\)$")
LABEL_GOES_ON = re.compile(
    r"\b(?:to|of|and|or|for|from|in|on|by|with|attributable|including|excluding|net of),?$", re.I
)


@dataclass
class Word:
    x0: float
    y0: float
    x1: float
    y1: float
    text: str


@dataclass
class Line:
    words: list[Word]

    @property
    def y(self) -> float:
        return sum((w.y0 + w.y1) / 2 for w in self.words) / len(self.words)

    @property
    def x0(self) -> float:
        return self.words[0].x0

    def text(self) -> str:
        return " ".join(w.text for w in self.words)


@dataclass
class Row:
    line_index: int
    label: str
    indent: float
    label_end: float
    figures: list[Word]


def visual_lines(words: list[Word]) -> list[Line]:
    """Words grouped into printed lines (MuPDF puts a label and its figures in different blocks)."""
    lines: list[Line] = []
    for word in sorted(words, key=lambda w: ((w.y0 + w.y1) / 2, w.x0)):
        centre = (word.y0 + word.y1) / 2
        if lines and abs(lines[-1].y - centre) <= LINE_TOLERANCE:
            lines[-1].words.append(word)
        else:
            lines.append(Line([word]))
    for line in lines:
        line.words.sort(key=lambda w: w.x0)
    return lines


def as_row(index: int, line: Line) -> Row | None:
    """A label, a tabular gap, then only figures (and currency signs): a row of a table."""
    words: list[Word] = []
    for w in line.words:
        if w.text == "%" and words and FIGURE.match(words[-1].text + "%"):
            words[-1] = Word(words[-1].x0, words[-1].y0, w.x1, w.y1, words[-1].text + "%")
        elif w.text not in CURRENCY:
            words.append(w)
    first = next((i for i, w in enumerate(words) if FIGURE.match(w.text)), None)
    # A footnote mark a word's space after the label is the label's ("Online stores (1)"); the pattern
    # reads "(1)" as a figure.
    while first is not None and first < len(words) - 1 and FOOTNOTE_MARK.match(words[first].text):
        if words[first].x0 - words[first - 1].x1 >= TABULAR_GAP:
            break
        first += 1
    if not first or any(not FIGURE.match(w.text) for w in words[first:]):
        return None
    label_words = words[:first]
    # A mark set as a superscript is a word of its own to MuPDF; the page prints "iPhone®".
    label = FOOTNOTE_MARKS.sub("", MARK_GAP.sub(r"\1", " ".join(w.text for w in label_words)))
    if not any(c.isalpha() for c in label) or words[first].x0 - label_words[-1].x1 < TABULAR_GAP:
        return None
    return Row(index, label.rstrip(" :"), label_words[0].x0, label_words[-1].x1, words[first:])


def columns_of(rows: list[Row]) -> list[tuple[float, float]]:
    """Column extents (left, right) from the right edges of the rows' figures (figures align right)."""
    figures = sorted((w for r in rows for w in r.figures), key=lambda w: w.x1)
    spans: list[list[float]] = []
    for w in figures:
        if spans and w.x1 - spans[-1][1] <= COLUMN_GAP:
            spans[-1][0], spans[-1][1] = min(spans[-1][0], w.x0), max(spans[-1][1], w.x1)
        else:
            spans.append([w.x0, w.x1])
    return [(a, b) for a, b in spans]


def phrases(line: Line) -> list[tuple[float, float, str]]:
    out: list[list] = []
    for w in line.words:
        if out and w.x0 - out[-1][1] <= PHRASE_GAP:
            out[-1][1], out[-1][2] = w.x1, f"{out[-1][2]} {w.text}"
        else:
            out.append([w.x0, w.x1, w.text])
    return [(a, b, t) for a, b, t in out]


def headers_of(lines: list[Line], first_row: int, columns: list[tuple[float, float]]) -> list[str]:
    """Each column's header: the phrases over it in the lines just above the table, top to bottom.

    Header lines lie over the figures (dates centred over their columns may start left of the
    figures); a group label ("Current assets:"), a heading that ends before the columns begin
    ("ASSETS", a segment's name) and a note in parentheses over the columns ("(in millions)") are
    skipped; a line that reaches from left of the columns into them as one phrase, or with a phrase
    centred elsewhere (a title, prose), ends the header.
    """
    left, right = columns[0][0] - HEADER_SLACK, columns[-1][1] + HEADER_SLACK
    above: list[Line] = []
    for line in reversed(lines[max(0, first_row - MAX_HEADER_LINES) : first_row]):
        note = UNIT_NOTE.match(line.text()) is not None and line.x0 >= left
        if line.text().endswith(":") or line.words[-1].x1 < left or note:
            continue
        over = phrases(line)
        if line.x0 < left and (len(over) < 2 or not all(left <= (a + b) / 2 <= right for a, b, _ in over)):
            break
        above.insert(0, line)
    # Each column takes, from every header line, the phrase centred nearest to it: a line with one
    # phrase per column labels each column, a line with fewer ("Three Months Ended" over a quarter's
    # two years) spans the columns closest to each of its phrases.
    headers: list[list[str]] = [[] for _ in columns]
    for line in above:
        found = phrases(line)
        for i, (a, b) in enumerate(columns):
            headers[i].append(min(found, key=lambda f: abs((f[0] + f[1]) / 2 - (a + b) / 2))[2])
    return [" ".join(h) for h in headers]


def label_lines(lines: list[Line], row: Row, columns: list[tuple[float, float]], *, since: int) -> int:
    """How many lines above the row's own hold the start of its label (none past line `since`, the
    previous row's). A line belongs to it when it starts no further right than the label (a wrapped
    label's later lines are often indented), ends before the columns (a header line lies over
    them), and the label goes on from it: the text below starts in lower case, or the line ends in a
    word that cannot end a label ("Net loss attributable to" / "Krispy Kreme, Inc."; short, so no
    line of prose, and between two rows only when the whole gap is the label). Browser prints wrap a
    label over three lines ("Capital contribution by" / "shareholders, net of loans" / "issued 132")."""
    top, piece, by_word = row.line_index, row.label, False
    while top - 1 > since and row.line_index - top < MAX_LABEL_LINES:
        above = lines[top - 1]
        text = above.text()
        if text.endswith(":") or above.x0 > row.indent + LINE_TOLERANCE or above.words[-1].x1 >= columns[0][0]:
            break
        goes_on = len(above.words) <= WRAPPED_WORDS and LABEL_GOES_ON.search(text) is not None
        if not (piece[:1].islower() or goes_on):
            break
        by_word = by_word or not piece[:1].islower()
        top, piece = top - 1, text
    if by_word and since >= 0 and top != since + 1:
        return 0
    return row.line_index - top


def line_units(lines: list[Line]) -> list[str | None]:
    """The unit in force at each line: that of the latest note above it on the page ("(In millions,
    except per share amounts)" under a statement's title, "(in thousands)" over a note's table), or
    of the group of rows it is in ("Average daily shipments (in thousands):", up to the next line
    ending in a colon); none under a header that gives its columns units of their own."""
    units: list[str | None] = []
    table = group = None
    for line in lines:
        text = line.text()
        if column_unit(text):
            table = group = None
        else:
            table = printed_unit(text) or table
        if text.endswith(":"):
            group = group_unit(text)
        units.append(group or table)
    return units


def column_of(word: Word, columns: list[tuple[float, float]]) -> int:
    return min(range(len(columns)), key=lambda i: abs(columns[i][1] - word.x1))


def table_rows(page: pymupdf.Page, *, outside: Sequence[pymupdf.Rect] = ()) -> list[str]:
    """The page's table rows as sentences with their headers; [] for a page without a table. Words
    inside `outside` (tables read otherwise) are not read."""
    words = [
        Word(*w[:5])
        for w in page.get_text("words", flags=pymupdf.TEXT_MEDIABOX_CLIP)
        if not any(area.contains(pymupdf.Point((w[0] + w[2]) / 2, (w[1] + w[3]) / 2)) for area in outside)
    ]
    lines = visual_lines(words)
    rows = [r for i, line in enumerate(lines) if (r := as_row(i, line)) is not None]
    if len(rows) < MIN_ROWS:
        return []
    columns = columns_of(rows)
    # A first row whose label wraps ("Cash, cash equivalents … beginning" / "balances $ 30,737")
    # begins higher: the headers are above its first line (what lies above a table's first row is a
    # header or the label's first lines, not prose).
    first = rows[0].line_index
    headers = headers_of(lines, first - label_lines(lines, rows[0], columns, since=-1), columns)
    units = line_units(lines)
    out = []
    section: tuple[float, str] | None = None
    previous = -1
    for row in rows:
        # A line between rows ending in ':' names the group of the rows indented under it.
        for line in lines[previous + 1 : row.line_index]:
            text = line.text()
            if text.endswith(":") and line.x0 < columns[0][0]:
                section = (line.x0, text.rstrip(":"))
        wrapped = label_lines(lines, row, columns, since=previous)
        label = rejoined(
            " ".join([*(line.text() for line in lines[row.line_index - wrapped : row.line_index]), row.label])
        )
        context = section[1] if section and section[0] < row.indent - 1 else None
        cells = [(headers[column_of(w, columns)], w.text) for w in row.figures]
        amounts = any(not w.text.endswith("%") for w in row.figures)
        unit = units[row.line_index] if amounts and unit_applies(f"{context or ''} {label}") else None
        out.append(render_row(context, label, cells, unit))
        previous = row.line_index
        if label.startswith("Total"):
            section = None  # a total closes its group
    return out
