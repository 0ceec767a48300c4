"""An Excel workbook (.xlsx) written as HTML for MuPDF to lay out: each sheet a table drawn with rules.

A retention schedule, a controls baseline or a RACI matrix is often a spreadsheet. MuPDF's own reader
lays a workbook out as one stream of small pages whose cells carry no rules, so no row reaches the
index with its column headers, and dates print as serial numbers ("41562"). Here each visible sheet
becomes a heading (its name) and a table whose cells are the sheet's printed values: shared and
inline strings, numbers, booleans, dates from their number format (ISO, "2013-10-15"), percentages;
merged cells span. services/ingest/ruled_tables.py reads each row with its headers, as it reads a
Word table (services/ingest/word.py).

Not written: formulas (a cell's cached value is), charts, pictures, comments, hidden sheets; a sheet
is cut at MAX_COLUMNS columns.
"""

from __future__ import annotations

import html
import io
import posixpath
import re
import zipfile
from datetime import datetime, timedelta
from xml.etree import ElementTree

from services.ingest.html_pages import RULED_TABLES, html_page
from services.ingest.ooxml import attr, child, children, int_of, local, parsed, relationships
from shared.documents.filetype import ParseError

LANDSCAPE_LETTER = (792.0, 612.0)  # points: a sheet is wider than it is long
MAX_COLUMNS = 50
# Excel's built-in number formats that are dates or times (ECMA-376 §18.8.30).
DATE_FORMATS = {14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47}
PERCENT_FORMATS = {9, 10}
_QUOTED = re.compile(r'"[^"]*"|\[[^\]]*\]|\\.')
_CELL = re.compile(r"([A-Z]+)(\d+)")
CSS = (
    RULED_TABLES
    + """
body { font-family: sans-serif; font-size: 9pt }
h2 { font-size: 12pt; margin: 8pt 0 4pt 0 }
table { margin: 0 0 10pt 0 }
td { padding: 2pt 3pt }
@page { margin: 36pt }
"""
)


def _column(letters: str) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - ord("A") + 1
    return number - 1


def _shared_strings(root: ElementTree.Element | None) -> list[str]:
    """Each shared string's text, its rich-text runs joined (phonetic hints left out)."""
    out = []
    for item in root if root is not None else ():
        if local(item.tag) == "si":
            out.append("".join(t.text or "" for t in item.iter() if local(t.tag) == "t" and not _in_phonetic(item, t)))
    return out


def _in_phonetic(item: ElementTree.Element, text: ElementTree.Element) -> bool:
    return any(text in list(run.iter()) for run in item if local(run.tag) == "rPh")


def _formats(root: ElementTree.Element | None) -> list[str]:
    """Per cell style (cellXfs), how its numbers print: "date", "percent" or "number"."""
    custom = {}
    for fmt in (e for e in root.iter() if local(e.tag) == "numFmt") if root is not None else ():
        code = _QUOTED.sub("", attr(fmt, "formatCode") or "").lower()
        custom[int_of(attr(fmt, "numFmtId"), -1)] = (
            "percent" if "%" in code else "date" if ("y" in code or "d" in code) else "number"
        )
    kinds = []
    cell_formats = next((e for e in root.iter() if local(e.tag) == "cellXfs"), None) if root is not None else None
    for xf in children(cell_formats, "xf") if cell_formats is not None else ():
        number = int_of(attr(xf, "numFmtId"), 0)
        builtin = "date" if number in DATE_FORMATS else "percent" if number in PERCENT_FORMATS else "number"
        kinds.append(custom.get(number, builtin))
    return kinds


def _number(value: str, kind: str, epoch: datetime) -> str:
    try:
        number = float(value)
    except ValueError:
        return value
    if kind == "date":
        moment = epoch + timedelta(days=number)
        return moment.strftime("%Y-%m-%d %H:%M" if number % 1 else "%Y-%m-%d")
    if kind == "percent":
        return f"{number * 100:g}%"
    return f"{number:g}" if abs(number) < 1e15 else value


def _value(cell: ElementTree.Element, strings: list[str], kinds: list[str], epoch: datetime) -> str:
    kind, raw = attr(cell, "t") or "n", child(cell, "v")
    text = raw.text or "" if raw is not None else ""
    if kind == "s":
        index = int_of(text, -1)
        return strings[index] if 0 <= index < len(strings) else ""
    if kind == "inlineStr":
        inline = child(cell, "is")
        return "".join(t.text or "" for t in inline.iter() if local(t.tag) == "t") if inline is not None else ""
    if kind == "b":
        return "TRUE" if text == "1" else "FALSE"
    if kind in ("str", "e"):
        return text
    style = int_of(attr(cell, "s"), 0)
    return _number(text, kinds[style] if style < len(kinds) else "number", epoch) if text else ""


def _merges(sheet: ElementTree.Element) -> dict[tuple[int, int], tuple[int, int]]:
    """(row, column) of each merged range's first cell → its (rowspan, colspan); the cells it
    covers map to (0, 0)."""
    spans: dict[tuple[int, int], tuple[int, int]] = {}
    for merge in (e for e in sheet.iter() if local(e.tag) == "mergeCell"):
        ends = [_CELL.fullmatch(end) for end in (attr(merge, "ref") or "").split(":")]
        if len(ends) != 2 or not all(ends):
            continue
        (c0, r0), (c1, r1) = ((_column(m.group(1)), int(m.group(2))) for m in ends if m)
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                spans[(r, c)] = (0, 0)
        spans[(r0, c0)] = (r1 - r0 + 1, c1 - c0 + 1)
    return spans


def sheet_table(sheet: ElementTree.Element, strings: list[str], kinds: list[str], epoch: datetime) -> str:
    """The sheet's rows with values as one table; its empty rows and trailing empty columns left out."""
    grid: dict[int, dict[int, str]] = {}
    for row in (e for e in sheet.iter() if local(e.tag) == "row"):
        number = int_of(attr(row, "r"), len(grid) + 1)
        for position, cell in enumerate(children(row, "c")):
            ref = _CELL.fullmatch(attr(cell, "r") or "")
            column = _column(ref.group(1)) if ref else position
            value = _value(cell, strings, kinds, epoch).strip()
            if value and column < MAX_COLUMNS:
                grid.setdefault(number, {})[column] = value
    if not grid:
        return ""
    width = max(max(cells) for cells in grid.values()) + 1
    spans = _merges(sheet)
    rows = []
    for number in sorted(grid):
        cells = []
        for column in range(width):
            rowspan, colspan = spans.get((number, column), (1, 1))
            if rowspan == 0:
                continue
            span = "".join(f' {k}="{v}"' for k, v in (("rowspan", rowspan), ("colspan", colspan)) if v > 1)
            cells.append(f"<td{span}>{html.escape(grid[number].get(column, ''))}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table>{''.join(rows)}</table>"


def workbook_html(data: bytes) -> tuple[str, tuple[float, float]]:
    """The HTML of a workbook's visible sheets and the page size to lay them out on; `ParseError`
    when the package or its workbook part cannot be read."""
    try:
        package = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ParseError(f"corrupt xlsx file: {exc}") from exc
    with package:
        book_name = next((t for _, k, t in relationships(package, "_rels/.rels", "") if k == "officeDocument"), "")
        book = parsed(package, book_name or "xl/workbook.xml")
        if book is None:
            raise ParseError("corrupt xlsx file: it has no workbook part")
        folder, name = posixpath.split(book_name or "xl/workbook.xml")
        related = {
            rid: (kind, target) for rid, kind, target in relationships(package, f"{folder}/_rels/{name}.rels", folder)
        }
        by_kind = {kind: target for kind, target in related.values()}
        strings = _shared_strings(parsed(package, by_kind.get("sharedStrings", f"{folder}/sharedStrings.xml")))
        kinds = _formats(parsed(package, by_kind.get("styles", f"{folder}/styles.xml")))
        properties = next((e for e in book.iter() if local(e.tag) == "workbookPr"), None)
        in_1904 = properties is not None and (attr(properties, "date1904") or "").lower() in ("1", "true")
        epoch = datetime(1904, 1, 1) if in_1904 else datetime(1899, 12, 30)
        out = []
        for sheet in (e for e in book.iter() if local(e.tag) == "sheet"):
            target = related.get(attr(sheet, "id") or "", ("", ""))[1]
            root = parsed(package, target) if target and attr(sheet, "state") in (None, "visible") else None
            table = sheet_table(root, strings, kinds, epoch) if root is not None else ""
            if table:
                out.append(f"<h2>{html.escape(attr(sheet, 'name') or '')}</h2>{table}")
    body = "".join(out)
    return html_page(CSS, body), LANDSCAPE_LETTER
