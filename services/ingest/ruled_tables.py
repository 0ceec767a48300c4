"""Tables of words drawn in ruled cells (a policy's classification levels, a retention schedule, a
regulation's list of duties), each row as one sentence with its column headers (issue #27).

MuPDF's reading order gives each cell of such a table as a block of its own, or glues cells that
share a printed line ("Confidential Customer contracts,"), so "Encrypt at rest and in transit"
arrives apart from the "Confidential" its row is about and from the "Handling requirements" column it
sits in: neither the search nor an answer can say what it applies to. A table of figures has a
signature in word positions alone (services/ingest/tables.py); a table of words has none, since its
cells are prose, but a policy draws its cells with rules. So here PyMuPDF's table finder gives the
cells' geometry on pages that have vertical rules, the page's words are placed in the cells by their
centres (the finder's own text glues words: "Shareonl y"), and each row is written as
shared/text/tables.py writes one:

    Confidential — Examples: Customer contracts, payroll records · Handling requirements: Encrypt …

A table mostly of figures is left to tables.py. The finder costs about 0.05 s a page on the rules
alone and half a second with PyMuPDF's layout model (see word_tables), so it runs only on pages with
vertical rules and no rows of figures (a filing's statement pages have both).
"""

from __future__ import annotations

from dataclasses import dataclass

import pymupdf

from shared.text.line_breaks import rejoined
from shared.text.tables import CURRENCY, FIGURE, MAX_ROW_CHARS, render_row

MIN_VERTICAL_RULES = 3  # a two-column table drawn in full has three
MIN_RULE_LENGTH = 6.0  # points: shorter strokes are glyph-like marks, not a cell's side
THIN = 3.0  # points: a rectangle this thin is drawn as a rule
WHITE = 0.95  # a colour whose every component is at least this is white on the page
MIN_ROWS = 2  # a header and one row
MAX_HEADER_CHARS = 60
MAX_HEADER_ROWS = 3
MIN_CELL_WIDTH = 12.0  # points: narrower "cells" are the gutters of double rules
# A header stands over a cell when they share this much of the narrower one's width.
HEADER_OVERLAP = 0.5
# A table is of figures (tables.py's) when a quarter of its body's words are figures, as a
# statement's text run together is (shared/text/tables.py); a currency sign is no word of it, and
# the header's words (many in a table of figures) are not counted.
MIN_FIGURE_SHARE = 0.25
# A table continued on the next page without its header row (Word and MuPDF repeat none) is read
# under the header of the table that ended the page before, where it starts in the page's top
# quarter, its columns are that table's and it does not print that header again (the first such
# table of the page); the table before must reach the last fifth of its page.
COLUMN_TOLERANCE = 2.0  # points
CONTINUES_BELOW = 0.8
CONTINUED_ABOVE = 0.25


@dataclass(frozen=True)
class WordTable:
    """A ruled table of words: the area it covers on its page, its rows as sentences, and the header
    they were read under (what a table continued on the next page is read under). A table of a
    header alone, at a page's foot, has no rows: its page keeps its blocks."""

    area: pymupdf.Rect
    rows: list[str]
    header: Header | None = None


def _visible(colour: tuple[float, ...] | None) -> bool:
    """A stroke or fill that shows on a white page (white rules separate shaded cells of a
    statement's rows, and a path without a stroke colour is a filled shape such as a chart's)."""
    return colour is not None and min(colour, default=1.0) < WHITE


def vertical_rules(page: pymupdf.Page) -> int:
    """How many visible vertical strokes the page draws: a stroked line, a thin filled rectangle,
    or the sides of a stroked rectangle (cell shading, a fill with no stroke, draws none)."""
    count = 0
    for path in page.get_drawings():
        stroked, filled = _visible(path.get("color")), _visible(path.get("fill"))
        for item in path["items"]:
            if item[0] == "l" and stroked:
                start, end = item[1], item[2]
                count += abs(start.x - end.x) < 1 and abs(start.y - end.y) >= MIN_RULE_LENGTH
            elif item[0] == "re" and item[1].height >= MIN_RULE_LENGTH:
                count += 1 if item[1].width < THIN and (filled or stroked) else 2 * stroked
    return count


@dataclass(frozen=True)
class Cell:
    """A cell's extent across the table and its words."""

    x0: float
    x1: float
    text: str

    def under(self, header: Cell) -> bool:
        """The header cell stands over this one (it may span this and its neighbours)."""
        overlap = min(self.x1, header.x1) - max(self.x0, header.x0)
        return overlap >= HEADER_OVERLAP * min(self.x1 - self.x0, header.x1 - header.x0)


@dataclass(frozen=True)
class Header:
    """A table's header rows and its columns' edges (those of its widest body row)."""

    rows: list[list[Cell]]
    columns: tuple[float, ...]

    def fits(self, rows: list[list[Cell]]) -> bool:
        """The rows' columns are this table's, each edge within COLUMN_TOLERANCE."""
        mine = columns_of(rows)
        return len(mine) == len(self.columns) and all(
            abs(a - b) <= COLUMN_TOLERANCE for a, b in zip(mine, self.columns, strict=True)
        )

    def continued_by(self, rows: list[list[Cell]]) -> bool:
        """The rows go on with this table: its columns, without this header printed again (a header
        row repeated on each page is the rows' own)."""
        again = [[c.text for c in row] for row in rows[: len(self.rows)]] == [[c.text for c in r] for r in self.rows]
        return self.fits(rows) and not again


def columns_of(rows: list[list[Cell]]) -> tuple[float, ...]:
    widest = max(rows, key=len)
    return (*(c.x0 for c in widest), widest[-1].x1)


def cell_text(words: list[tuple], box: tuple[float, float, float, float]) -> str:
    """The words whose centres lie in the box, in MuPDF's reading order (block, line, word)."""
    x0, y0, x1, y1 = box
    inside = [w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1]
    inside.sort(key=lambda w: (w[5], w[6], w[7]))
    return rejoined(" ".join(w[4] for w in inside))


def row_cells(words: list[tuple], boxes: list[tuple[float, float, float, float] | None]) -> list[Cell]:
    """A row's cells left to right; a cell spanned from the row above (None) and the gutter between
    a double rule's two strokes (a "cell" narrower than any text) are not cells of it."""
    return [Cell(b[0], b[2], cell_text(words, b)) for b in boxes if b is not None and b[2] - b[0] >= MIN_CELL_WIDTH]


def _header_cell(text: str) -> bool:
    return len(text) <= MAX_HEADER_CHARS and not text.endswith(".") and not FIGURE.match(text)


def header_rows(rows: list[list[Cell]]) -> int:
    """How many of the first rows are the header: the first, if its cells are short labels (none a
    figure or a sentence), and the next while the one above spans several of its cells ("Potential
    impact" over "Low", "Moderate", "High"). A first row of one label alone over several columns names
    none of them: it is the group of the rows under it ("Quarterly" atop a schedule continued from
    the page before), unless a header row follows it (a title over the header)."""
    count = 0
    while count < min(MAX_HEADER_ROWS, len(rows) - 1):
        texts = [c.text for c in rows[count] if c.text]
        if not texts or not all(map(_header_cell, texts)):
            break
        count += 1
        below = rows[count]
        if not any(sum(c.under(h) for c in below) > 1 for h in rows[count - 1] if h.text):
            break
    labels = [c for c in rows[0] if c.text]
    spanning_alone = count == 1 and len(labels) == 1 and sum(c.under(labels[0]) for c in rows[1]) > 1
    return 0 if spanning_alone else count


def _over_all(row: list[Cell], below: list[Cell]) -> bool:
    """The row is one label standing over every cell of the row below it."""
    labels = [c for c in row if c.text]
    return len(labels) == 1 and len(below) > 1 and all(c.under(labels[0]) for c in below)


def of_figures(rows: list[list[Cell]]) -> bool:
    tokens = [t.strip(",;:") for row in rows for c in row for t in c.text.split() if t not in CURRENCY]
    return not tokens or sum(FIGURE.match(t) is not None for t in tokens) >= MIN_FIGURE_SHARE * len(tokens)


def row_sentences(body: list[list[Cell]], headers: list[list[Cell]]) -> list[str]:
    """Each body row as a sentence: the cell at the table's left edge is its label (a row whose
    label cell is spanned from the row above, or empty, has that row's label), the others are
    under the headers standing over them; a row whose only words are at its left edge names the
    group of the rows under it."""
    left = min(c.x0 for row in body for c in row)
    if not headers and any(len(row[0].text) > MAX_HEADER_CHARS for row in body if row[0].x0 - left < MIN_CELL_WIDTH):
        # Without headers, a first column of paragraphs is no column of labels: text boxes laid out
        # side by side (a card, a two-column page), which MuPDF's blocks read as they are.
        return []
    group: str | None = None
    label = ""
    out: list[str] = []
    for cells in body:
        first = cells[0] if cells and cells[0].x0 - left < MIN_CELL_WIDTH else None
        label = first.text if first and first.text else label
        values = [c for c in cells if c.text and c is not first]
        if not values:
            # A short label names a group; a paragraph alone in its row (a sheet's note) names none.
            name = first.text.rstrip(":") if first and len(first.text) <= MAX_HEADER_CHARS else ""
            group = name or group
            continue
        if label:
            out.extend(rendered(group, label, [(header_of(c, headers), c.text) for c in values]))
    return out


def rendered(group: str | None, label: str, cells: list[tuple[str | None, str]]) -> list[str]:
    """The row as one sentence, or as one a cell when that is too long to read as one piece (a
    regulation's matrix of paragraphs): each cell is then quoted with its label and header."""
    whole = render_row(group, label, cells)
    if len(whole) <= MAX_ROW_CHARS or len(cells) == 1:
        return [whole]
    return [render_row(group, label, [cell]) for cell in cells]


def header_of(cell: Cell, headers: list[list[Cell]]) -> str | None:
    """The headers standing over the cell, top to bottom ("Potential impact Low"), if any."""
    return " ".join(h.text for row in headers for h in row if h.text and cell.under(h)) or None


def word_tables(page: pymupdf.Page, *, layout_model: bool = True, carried: Header | None = None) -> list[WordTable]:
    """The page's ruled tables of words, top to bottom; [] for a page without vertical rules.
    `carried` is the header of the table that ended the page before (`continued_header`).

    The finder reads the rules alone first: PyMuPDF 2's default asks its layout model (an ONNX
    network, about half a second a page) where the tables are, and where the model boxes a table
    drawn in full it cuts the rows at each printed line. Only a page where the rules give no table
    of words asks the model, and only with `layout_model`: a table ruled in part (a filing's exhibit
    list) is found only with it.
    """
    if vertical_rules(page) < MIN_VERTICAL_RULES:
        return []
    words = page.get_text("words", flags=pymupdf.TEXT_MEDIABOX_CLIP)
    top = page.rect.y0 + CONTINUED_ABOVE * page.rect.height
    foot = page.rect.y0 + CONTINUES_BELOW * page.rect.height
    found = _of_words(page.find_tables(strategy="lines", use_layout=False).tables, words, carried, top, foot)
    if found or not layout_model:
        return found
    return _of_words(page.find_tables(strategy="lines").tables, words, carried, top, foot)


def continued_header(page: pymupdf.Page, tables: list[WordTable]) -> Header | None:
    """The header a table on the next page is read under when it goes on there: that of the page's
    last table, if it reaches the page's last fifth."""
    last = tables[-1] if tables else None
    reaches = last is not None and last.area.y1 >= page.rect.y0 + CONTINUES_BELOW * page.rect.height
    return last.header if last is not None and reaches else None


def _of_words(tables: list, words: list[tuple], carried: Header | None, top: float, foot: float) -> list[WordTable]:
    out = []
    for table in sorted(tables, key=lambda t: t.bbox[1]):
        every = [row_cells(words, row.cells) for row in table.rows]
        rows = [cells for cells in every if any(c.text for c in cells)]
        if not rows or max(map(len, rows)) < 2:
            continue
        if len(rows) == 1 and table.bbox[3] >= foot and all(_header_cell(c.text) for c in rows[0] if c.text):
            # A header row alone at the page's foot: its rows start on the next page, read under it.
            out.append(WordTable(pymupdf.Rect(table.bbox), [], Header(rows, columns_of(rows))))
            continue
        heads = header_rows(rows)
        # A title over the whole header ("FedRAMP Tailored LI-SaaS Baseline - Details" over "No",
        # "Control ID", …) names no column: the rows are read under the header row below it.
        titled = heads >= 2 and _over_all(rows[0], rows[1])
        if carried is not None and table.bbox[1] <= top and carried.continued_by(rows):
            # The table goes on from the page before: a first row of short values is its data, not a header.
            headers, body, carried = carried.rows, rows, None
        else:
            headers, body = rows[1 if titled else 0 : heads], rows[heads:]
        if len(headers) + len(body) < MIN_ROWS or not body or of_figures(body):
            continue
        sentences = row_sentences(body, headers)
        if sentences:
            header = Header(headers, columns_of(body)) if headers else None
            out.append(WordTable(pymupdf.Rect(table.bbox), sentences, header))
    return out
