"""A Word document (.docx) written as HTML for MuPDF to lay out: its tables stay tables (issue #27).

MuPDF opens a .docx itself, but its reader keeps only paragraphs: every cell of a table becomes a
paragraph of its own, one under the other, so a retention schedule's "7 years" arrives apart from the
record and the column it belongs to, in the ingest and in the viewer alike; list items lose their
bullets and numbers, and bold and italic are dropped. Policies and procedures are mostly written in
Word and put their roles, schedules and classification levels in tables, so the rendition
(services/ingest/rendition.py) is laid out from this HTML instead: headings from the paragraph
styles, runs in bold, italic and underline, list items with the numbers Word prints ("3.2", "a)"),
tables with their merged cells and repeated header rows, drawn with rules. A table drawn with rules is
what services/ingest/ruled_tables.py reads a row at a time with its column headers.

Footnotes and endnotes are written after the body, numbered where they are marked (MuPDF's reader
glues their text into the sentence that marks them), and pictures as data URIs at their size (a scan
pasted into Word reaches OCR that way). Not written: text boxes, headers and footers, comments,
deleted text, field codes (a field's printed result is kept), and page breaks, which MuPDF's HTML
layout does not honour.

Every text of the package is escaped (services/ingest/word_xml.py reads it).
"""

from __future__ import annotations

import html
import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from xml.etree import ElementTree

from services.ingest.html_pages import LETTER, RULED_TABLES, html_page
from services.ingest.ooxml import EMU_PER_POINT, attr, child, children, int_of, local, on, parsed, pictures, val
from services.ingest.word_xml import MAX_HEADING_LEVEL, Numbering, Style, main_parts, notes, numbering_of, styles
from shared.documents.filetype import ParseError

TWIPS_PER_POINT = 20
CSS = (
    """
body { font-family: serif; font-size: 11pt; line-height: 1.25 }
h1 { font-size: 16pt } h2 { font-size: 14pt } h3 { font-size: 12.5pt }
h4, h5, h6 { font-size: 11pt }
p { margin: 0 0 6pt 0 }
"""
    + RULED_TABLES
)


# Run containers whose runs print (a hyperlink, a tracked insertion, a content control, a simple
# field's result); a deletion and a move's source do not.
_PRINTED = {"hyperlink", "ins", "moveTo", "smartTag", "sdt", "sdtContent", "fldSimple", "customXml", "dir", "bdo"}
_NOTE_REFERENCES = {"footnoteReference", "endnoteReference"}


def _picture(drawing: ElementTree.Element, uris: dict[str, str]) -> str:
    """A drawing's picture at its size in the document (an extent in EMUs), if its format is drawn."""
    blip = next((e for e in drawing.iter() if local(e.tag) in ("blip", "imagedata")), None)
    uri = uris.get((attr(blip, "embed") or attr(blip, "id") or "") if blip is not None else "")
    if uri is None:
        return ""
    extent = next((e for e in drawing.iter() if local(e.tag) == "extent"), None)
    width = int_of(attr(extent, "cx"), 0) / EMU_PER_POINT if extent is not None else 0
    height = int_of(attr(extent, "cy"), 0) / EMU_PER_POINT if extent is not None else 0
    size = f' style="width:{width:.1f}pt;height:{height:.1f}pt"' if width > 0 and height > 0 else ""
    return f'<img src="{uri}"{size}/>'


def _styled(text: str, props: ElementTree.Element | None) -> str:
    if not text.strip(" "):
        return text
    for tag in ("b", "i", "u"):
        if on(child(props, tag)):
            text = f"<{tag}>{text}</{tag}>"
    return text


@dataclass
class Cell:
    html: str
    header: bool
    colspan: int
    rowspan: int = 1

    def written(self) -> str:
        tag = "th" if self.header else "td"
        spans = "".join(f' {k}="{v}"' for k, v in (("colspan", self.colspan), ("rowspan", self.rowspan)) if v != 1)
        return f"<{tag}{spans}>{self.html}</{tag}>"


@dataclass
class Writer:
    """One walk through document.xml, writing HTML. It keeps the list counters as it goes, and the
    footnotes and endnotes in the order their marks are met: they are written after the body,
    numbered as marked (Word prints a footnote at its page's foot; MuPDF's reader puts its text in
    the middle of the sentence that marks it)."""

    styles: dict[str, Style]
    numbering: Numbering
    notes: dict[str, ElementTree.Element]
    pictures: dict[str, str]
    marked: list[str] = field(default_factory=list)

    def run(self, run: ElementTree.Element) -> str:
        pieces = []
        for node in run:
            name = local(node.tag)
            if name == "t":
                pieces.append(html.escape(node.text or ""))
            elif name in ("tab", "ptab"):
                pieces.append(" ")
            elif name in ("br", "cr") and attr(node, "type") not in ("page", "column"):
                pieces.append("<br/>")
            elif name == "noBreakHyphen":
                pieces.append("-")
            elif name in ("drawing", "pict"):
                pieces.append(_picture(node, self.pictures))
            elif name in _NOTE_REFERENCES and f"{name[:3]}{attr(node, 'id')}" in self.notes:
                self.marked.append(f"{name[:3]}{attr(node, 'id')}")
                pieces.append(f" <sup>{len(self.marked)}</sup>")
        return _styled("".join(pieces), child(run, "rPr"))

    def runs(self, element: ElementTree.Element) -> str:
        out = []
        for node in element:
            name = local(node.tag)
            if name == "r":
                out.append(self.run(node))
            elif name in _PRINTED:
                out.append(self.runs(node))
        return "".join(out)

    def endnotes(self) -> str:
        """The notes marked so far, each as a paragraph that opens with its number; notes marked
        inside notes are written too."""
        out = []
        for number, key in enumerate(self.marked, start=1):
            text = " ".join(self.runs(p).strip() for p in self.notes[key].iter() if local(p.tag) == "p")
            out.append(f"<p><sup>{number}</sup> {text.strip()}</p>")
        return f"<hr/>{''.join(out)}" if out else ""

    def _style(self, style_id: str | None) -> Iterator[Style]:
        """The paragraph style and those it is based on, nearest first (a loop is cut)."""
        seen: set[str] = set()
        while style_id and style_id in self.styles and style_id not in seen:
            seen.add(style_id)
            yield self.styles[style_id]
            style_id = self.styles[style_id].based_on

    def paragraph(self, p: ElementTree.Element) -> str:
        ppr = child(p, "pPr")
        chain = list(self._style(val(ppr, "pStyle")))
        outline = val(ppr, "outlineLvl")
        heading = next((s.heading for s in chain if s.heading), None)
        if outline is not None and int_of(outline, 9) < 9:
            heading = min(int_of(outline, 9) + 1, MAX_HEADING_LEVEL)
        numbered = numbering_of(ppr) or next((s.numbering for s in chain if s.numbering), None)
        label = self.numbering.label(*numbered) if numbered and numbered[0] != "0" else ""
        text = self.runs(p).strip()
        if not text:
            return ""
        if label:
            indent = numbered[1] * 18 if numbered else 0
            text = f"{html.escape(label)} {text}"
            if not heading:
                return f'<p style="margin-left:{18 + indent}pt">{text}</p>'
        return f"<h{heading}>{text}</h{heading}>" if heading else f"<p>{text}</p>"

    def table(self, tbl: ElementTree.Element) -> str:
        """Rows with their merged cells: a horizontal merge (gridSpan) is a colspan; a vertical one
        (vMerge) adds to the rowspan of the cell that started it in the same grid column."""
        rows: list[list[Cell]] = []
        started: dict[int, Cell] = {}
        for tr in children(tbl, "tr"):
            trpr = child(tr, "trPr")
            header = on(child(trpr, "tblHeader"))
            column = int_of(val(trpr, "gridBefore"), 0)
            row = []
            for tc in children(tr, "tc"):
                tcpr = child(tc, "tcPr")
                span = max(1, int_of(val(tcpr, "gridSpan"), 1))
                merge = child(tcpr, "vMerge")
                if merge is not None and attr(merge, "val") in (None, "continue") and column in started:
                    started[column].rowspan += 1
                else:
                    cell = Cell(html=self.blocks(tc), header=header, colspan=span)
                    row.append(cell)
                    started[column] = cell
                column += span
            rows.append(row)
        body = "".join(f"<tr>{''.join(cell.written() for cell in row)}</tr>" for row in rows if row)
        return f"<table>{body}</table>" if body else ""

    def blocks(self, parent: ElementTree.Element) -> str:
        """The paragraphs and tables of the body, a cell or a content control, in order."""
        out = []
        for node in parent:
            name = local(node.tag)
            if name == "p":
                out.append(self.paragraph(node))
            elif name == "tbl":
                out.append(self.table(node))
            elif name in ("sdt", "sdtContent", "customXml"):
                out.append(self.blocks(node))
        return "".join(out)


def page_size(body: ElementTree.Element) -> tuple[float, float]:
    """The last section's page size in points (its `sectPr` closes the body), Letter where unstated."""
    size = child(child(body, "sectPr"), "pgSz")
    if size is None:
        return LETTER
    width, height = int_of(attr(size, "w"), 0), int_of(attr(size, "h"), 0)
    return (width / TWIPS_PER_POINT, height / TWIPS_PER_POINT) if width > 0 and height > 0 else LETTER


def word_html(data: bytes) -> tuple[str, tuple[float, float]]:
    """The HTML of a .docx's body and the page size to lay it out on; `ParseError` when the package
    or its document part cannot be read."""
    try:
        package = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ParseError(f"corrupt docx file: {exc}") from exc
    with package:
        parts = main_parts(package)
        document = parsed(package, parts.document)
        if document is None:
            raise ParseError(f"corrupt docx file: it has no {parts.document}")
        writer = Writer(
            styles=styles(parsed(package, parts.related["styles"])),
            numbering=Numbering.read(parsed(package, parts.related["numbering"])),
            notes={
                **notes(parsed(package, parts.related["footnotes"]), "foo"),
                **notes(parsed(package, parts.related["endnotes"]), "end"),
            },
            pictures=pictures(package, parts.pictures),
        )
    body = child(document, "body")
    if body is None:
        raise ParseError("corrupt docx file: its document has no body")
    width, height = page_size(body)
    margin = 54  # points: Word's default margins are 72; narrower keeps more of a wide table on the page
    css = CSS + f"@page {{ margin: {margin}pt }}"
    text = writer.blocks(body)
    return html_page(css, f"{text}{writer.endnotes()}"), (width, height)
