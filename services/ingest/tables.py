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

A page may hold several tables (a note's "Inventories", then "Property, Plant and Equipment"): a
line between two rows that reaches over the figures (a header, prose) starts a new table, with its
own columns and headers. A group label ("Operating activities:", or a line under which the next
rows are indented) names the rows under it; a row indented deeper than the group's rows is its
total, which belongs to the enclosing group. A table without header lines whose columns are those
of the table before it (on this page or the previous one) is that table continued.
Word positions cost a few milliseconds a page; PyMuPDF's `find_tables` costs about a second a
page on a filing's statements and glues words together ("Beginningbalances"), so it is not used.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pymupdf

from shared.text.tables import FIGURE, render_row

CURRENCY = {"$", "€", "£", "%", ")"}
LINE_TOLERANCE = 3.0  # points between the vertical centres of words on one printed line
TABULAR_GAP = 18.0  # points between a label and its first figure (prose has single spaces)
PHRASE_GAP = 6.0  # points between words of one header phrase
COLUMN_GAP = 12.0  # points between the right edges of figures of different columns
MAX_HEADER_LINES = 5
HEADER_SLACK = 30.0  # points a centred header may reach left of the first column
HEADER_REACH = 60.0  # points a header phrase may start left of it ("December 31, 2022" over a narrow column)
MIN_ROWS = 3


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
    if not first or any(not FIGURE.match(w.text) for w in words[first:]):
        return None
    label_words = words[:first]
    label = " ".join(w.text for w in label_words)
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


@dataclass
class Table:
    rows: list[Row]
    columns: list[tuple[float, float]]
    headers: list[str] = field(default_factory=list)
    top: int = 0  # index of its first header line (its first row's where it has none)


@dataclass
class PageTables:
    """A page's rows as sentences and its last table (the next page may continue it)."""

    sentences: list[str] = field(default_factory=list)
    last: Table | None = None


def over_columns(line: Line, left: float) -> bool:
    return line.words[-1].x1 > left


def split_tables(lines: list[Line], rows: list[Row]) -> list[list[Row]]:
    """Consecutive rows, cut wherever a line between two of them reaches over the figures."""
    left = columns_of(rows)[0][0]
    tables = [[rows[0]]]
    for row in rows[1:]:
        between = lines[tables[-1][-1].line_index + 1 : row.line_index]
        if any(over_columns(line, left) for line in between):
            tables.append([row])
        else:
            tables[-1].append(row)
    return tables


def headers_of(
    lines: list[Line], floor: int, first_row: int, columns: list[tuple[float, float]]
) -> tuple[list[str], int]:
    """Each column's header (the phrases over it in the lines just above the table, top to bottom) and
    the index of the topmost header line.

    Header lines are phrases that start near or over the figures; a line wholly left of them (a group label, a
    title such as "ASSETS") is passed over, and a line that reaches from the left into them (prose)
    ends the header.
    """
    above: list[Line] = []
    top = first_row
    for index in range(first_row - 1, max(floor, first_row - MAX_HEADER_LINES) - 1, -1):
        line = lines[index]
        if not over_columns(line, columns[0][0]):
            continue
        if any(x0 < columns[0][0] - HEADER_REACH for x0, _, _ in phrases(line)):
            break
        above.insert(0, line)
        top = index
    # Each column takes, from every header line, the phrase centred nearest to it: a line with one
    # phrase per column labels each column, a line with fewer ("Three Months Ended" over a quarter's
    # two years) spans the columns closest to each of its phrases.
    headers: list[list[str]] = [[] for _ in columns]
    for line in above:
        found = [((x0 + x1) / 2, text) for x0, x1, text in phrases(line)]
        for i, (a, b) in enumerate(columns):
            headers[i].append(min(found, key=lambda f: abs(f[0] - (a + b) / 2))[1])
    return [" ".join(h) for h in headers], top


def continues(table: Table, before: Table | None) -> bool:
    """A table printed without headers in the columns of the table before it is that table continued."""
    if before is None or any(table.headers) or len(before.columns) != len(table.columns):
        return False
    return all(abs(a[1] - b[1]) <= COLUMN_GAP for a, b in zip(table.columns, before.columns, strict=True))


def column_of(word: Word, columns: list[tuple[float, float]]) -> int:
    return min(range(len(columns)), key=lambda i: abs(columns[i][1] - word.x1))


@dataclass
class Group:
    x0: float
    name: str
    members: float | None = None  # indent of its first row


def group_label(line: Line, next_row: Row, columns: list[tuple[float, float]]) -> str | None:
    """The group a line names: wholly left of the figures, and ending in ':' or with the next row
    indented under it. A prose line ending in ':' ("The following tables show …:") reaches over them."""
    text = line.text()
    if over_columns(line, columns[0][0]) or not any(c.isalpha() for c in text):
        return None
    if text.endswith(":") or next_row.indent > line.x0 + 1:
        return text.rstrip(" :")
    return None


def group_of(stack: list[Group], row: Row) -> str | None:
    """The innermost group the row belongs to (the stack is updated for the rows that follow)."""
    while stack and stack[-1].x0 >= row.indent - 1:
        stack.pop()  # a row at or left of a group's label is outside it
    if stack and stack[-1].members is None:
        stack[-1].members = row.indent
    elif stack and stack[-1].members is not None and row.indent > stack[-1].members + 1:
        stack.pop()  # indented deeper than the group's rows: the group's total, in the enclosing group
    return stack[-1].name if stack else None


def rendered(lines: list[Line], table: Table, floor: int) -> list[str]:
    out = []
    stack: list[Group] = []
    previous = floor - 1
    for row in table.rows:
        for line in lines[previous + 1 : row.line_index]:
            name = group_label(line, row, table.columns)
            if name:
                while stack and stack[-1].x0 >= line.x0 - 1:
                    stack.pop()
                stack.append(Group(line.x0, name))
        label = row.label
        wrapped = lines[row.line_index - 1].text() if previous + 1 < row.line_index else ""
        if row.label[:1].islower() and wrapped and not wrapped.endswith(":"):
            label = f"{wrapped} {label}"  # a label wrapped onto a second line
        context = group_of(stack, row)
        cells = [(table.headers[column_of(w, table.columns)], w.text) for w in row.figures]
        out.append(render_row(context, label, cells))
        previous = row.line_index
        if label.startswith("Total") and stack and context == stack[-1].name:
            stack.pop()  # a total closes its group
    return out


def page_tables(page: pymupdf.Page, before: Table | None = None) -> PageTables:
    """The page's tables; `before` is the previous page's last table, whose headers a table continued
    from it takes. Empty for a page without a table."""
    words = [Word(*w[:5]) for w in page.get_text("words", flags=pymupdf.TEXT_MEDIABOX_CLIP)]
    lines = visual_lines(words)
    rows = [r for i, line in enumerate(lines) if (r := as_row(i, line)) is not None]
    result = PageTables()
    if len(rows) < MIN_ROWS:
        return result
    floor = 0
    for group in split_tables(lines, rows):
        table = Table(group, columns_of(group))
        table.headers, table.top = headers_of(lines, floor, group[0].line_index, table.columns)
        if continues(table, before):
            table.headers = list(before.headers) if before else table.headers
        result.sentences.extend(rendered(lines, table, max(floor, table.top)))
        floor, before = group[-1].line_index + 1, table
    result.last = before
    return result
