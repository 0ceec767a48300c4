"""A PowerPoint deck's rendition: one page per slide, at the slide's size, laid out from HTML
written of its XML.

MuPDF's own reader of .pptx lays a deck out as a stream of portrait 400 × 600-point pages and gives
every table cell as a paragraph of its own, one under the other ("Record", "Kept for", "Invoices",
"Seven years"…), so no row is read with its headers and no page is a slide. Here each visible
slide is written as HTML in reading order (top to bottom, then left to right): its title as a
heading, its text frames' paragraphs with their list levels, its tables drawn with rules
(services/ingest/html_pages.py; merged cells kept), its pictures as data URIs (a scan on a slide
reaches OCR), then its speaker notes under "Notes". Each slide is laid out on its own page size
and the pages joined, since MuPDF's HTML layout has no page breaks; a slide whose text does not fit
goes on to a second page. Hidden slides are left out, as a slide show leaves them.
"""

from __future__ import annotations

import html
import io
import posixpath
import zipfile
from dataclasses import dataclass
from xml.etree import ElementTree

import pymupdf

from services.ingest.html_pages import RULED_TABLES, html_page
from services.ingest.ooxml import (
    EMU_PER_POINT,
    attr,
    child,
    children,
    int_of,
    local,
    parsed,
    pictures,
    relationship_id,
    relationships,
)
from shared.documents.filetype import ParseError

FOUR_BY_THREE = (720.0, 540.0)  # points: the slide size a presentation part does not state
CSS = (
    """
body { font-family: sans-serif; font-size: 12pt; line-height: 1.25 }
h2 { font-size: 20pt; margin: 0 0 10pt 0 } h3 { font-size: 12pt; margin: 12pt 0 4pt 0 }
p { margin: 0 0 5pt 0 }
img { max-width: 100% }
@page { margin: 36pt }
"""
    + RULED_TABLES
)
_TITLES = {"title", "ctrTitle"}
# Placeholders whose paragraphs are a list unless they say otherwise (a content placeholder has no
# type); a free text box, passed as "", is not.
_BODIES = {None, "body", "obj"}


@dataclass(frozen=True)
class Slide:
    """A visible slide's XML, its pictures as data URIs by relationship id, and its notes' XML."""

    root: ElementTree.Element
    uris: dict[str, str]
    notes: ElementTree.Element | None


def _text(paragraph: ElementTree.Element) -> str:
    """A paragraph's runs, line breaks and fields, escaped."""
    pieces = []
    for element in paragraph:
        tag = local(element.tag)
        if tag in ("r", "fld"):
            pieces.append(html.escape("".join(t.text or "" for t in element.iter() if local(t.tag) == "t")))
        elif tag == "br":
            pieces.append("<br/>")
    return "".join(pieces)


def text_frame(body: ElementTree.Element | None, placeholder: str | None, *, title: bool) -> str:
    """A text frame's paragraphs: a title as a heading; a body placeholder's as a list by level
    (a bullet unless the paragraph turns it off), any other shape's as paragraphs."""
    out = []
    for paragraph in children(body, "p") if body is not None else ():
        text = _text(paragraph).strip()
        if not text:
            continue
        if title:
            out.append(text)
            continue
        props = child(paragraph, "pPr")
        level = int_of(attr(props, "lvl") if props is not None else None, 0)
        bulleted = placeholder in _BODIES and child(props, "buNone") is None
        mark = "• " if bulleted else ""
        out.append(f'<p style="margin-left:{18 * level}pt">{mark}{text}</p>')
    if title:
        return f"<h2>{' '.join(out)}</h2>" if out else ""
    return "".join(out)


def table(element: ElementTree.Element) -> str:
    """A slide's table, drawn with rules; a merged cell spans, the cells it covers are left out."""
    rows = []
    for row in children(element, "tr"):
        cells = []
        for cell in children(row, "tc"):
            if attr(cell, "hMerge") in ("1", "true") or attr(cell, "vMerge") in ("1", "true"):
                continue
            span = "".join(
                f' {name}="{value}"'
                for name, value in (("colspan", attr(cell, "gridSpan")), ("rowspan", attr(cell, "rowSpan")))
                if value and value.isdigit() and int(value) > 1
            )
            body = child(cell, "txBody")
            text = "<br/>".join(t for p in children(body, "p") if (t := _text(p).strip())) if body is not None else ""
            cells.append(f"<td{span}>{text}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table>{''.join(rows)}</table>"


def _offset(shape: ElementTree.Element) -> tuple[int, int]:
    """Where a shape sits on its slide (EMUs, top then left): the reading order. A placeholder that
    keeps its layout's place states none, and is read first (a title is read first anyway)."""
    off = next((e for e in shape.iter() if local(e.tag) == "off"), None)
    return (int_of(attr(off, "y"), 0), int_of(attr(off, "x"), 0)) if off is not None else (0, 0)


def _placeholder(shape: ElementTree.Element) -> tuple[bool, str | None]:
    """(is a placeholder, its type) of a shape."""
    ph = next((e for e in shape.iter() if local(e.tag) == "ph"), None)
    return ph is not None, attr(ph, "type") if ph is not None else None


def shapes(tree: ElementTree.Element, uris: dict[str, str]) -> list[tuple[tuple[int, int], str]]:
    """The HTML of each shape of a shape tree (groups read as their shapes), with its offset."""
    out = []
    for shape in tree:
        tag = local(shape.tag)
        if tag == "grpSp":
            inner = sorted(shapes(shape, uris))
            if inner:
                out.append((_offset(shape), "".join(html_of for _, html_of in inner)))
        elif tag == "sp":
            is_placeholder, kind = _placeholder(shape)
            written = text_frame(child(shape, "txBody"), kind if is_placeholder else "", title=kind in _TITLES)
            if written:
                out.append((_offset(shape), written))
        elif tag == "graphicFrame":
            grid = next((e for e in shape.iter() if local(e.tag) == "tbl"), None)
            if grid is not None:
                out.append((_offset(shape), table(grid)))
        elif tag == "pic":
            blip = next((e for e in shape.iter() if local(e.tag) == "blip"), None)
            uri = uris.get(attr(blip, "embed") or "") if blip is not None else None
            if uri:
                out.append((_offset(shape), f'<img src="{uri}"/>'))
    return out


def slide_html(slide: Slide) -> str:
    """A slide's shapes in reading order, its title first, then its speaker notes."""
    tree = next((e for e in slide.root.iter() if local(e.tag) == "spTree"), None)
    placed = sorted(shapes(tree, slide.uris)) if tree is not None else []
    titles = [written for _, written in placed if written.startswith("<h2>")]
    body = "".join(titles + [written for _, written in placed if not written.startswith("<h2>")])
    notes_tree = next((e for e in slide.notes.iter() if local(e.tag) == "spTree"), None) if slide.notes else None
    notes = "".join(
        text_frame(child(shape, "txBody"), "", title=False)
        for shape in (notes_tree if notes_tree is not None else ())
        if local(shape.tag) == "sp" and _placeholder(shape)[1] == "body"
    )
    return body + (f"<h3>Notes</h3>{notes}" if notes else "")


def visible_slides(package: zipfile.ZipFile) -> tuple[list[Slide], tuple[float, float]]:
    """The deck's visible slides in order, and its slide size in points."""
    main = next((t for _, k, t in relationships(package, "_rels/.rels", "") if k == "officeDocument"), "")
    main = main or "ppt/presentation.xml"
    presentation = parsed(package, main)
    if presentation is None:
        raise ParseError("corrupt pptx file: it has no presentation part")
    folder, name = posixpath.split(main)
    targets = {rid: target for rid, _, target in relationships(package, f"{folder}/_rels/{name}.rels", folder)}
    size = next((e for e in presentation.iter() if local(e.tag) == "sldSz"), None)
    width, height = (int_of(attr(size, n), 0) / EMU_PER_POINT for n in ("cx", "cy")) if size is not None else (0, 0)
    slides = []
    for entry in (e for e in presentation.iter() if local(e.tag) == "sldId"):
        part = targets.get(relationship_id(entry) or "")
        root = parsed(package, part) if part else None
        if root is None or attr(root, "show") in ("0", "false"):
            continue
        slide_folder, slide_name = posixpath.split(part or "")
        related = list(relationships(package, f"{slide_folder}/_rels/{slide_name}.rels", slide_folder))
        notes = next((parsed(package, target) for _, kind, target in related if kind == "notesSlide"), None)
        uris = pictures(package, {rid: target for rid, kind, target in related if kind == "image"})
        slides.append(Slide(root, uris, notes))
    return slides, (width, height) if width > 0 and height > 0 else FOUR_BY_THREE


def slides_pdf(data: bytes) -> tuple[bytes, tuple[float, float]]:
    """The deck as PDF pages, one or more per visible slide, and the slide size; `ParseError` when
    the package or its presentation part cannot be read."""
    try:
        package = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ParseError(f"corrupt pptx file: {exc}") from exc
    with package:
        slides, (width, height) = visible_slides(package)
    out = pymupdf.open()
    for slide in slides:
        with pymupdf.open(stream=html_page(CSS, slide_html(slide)).encode(), filetype="html") as laid:
            laid.layout(width=width, height=height)
            with pymupdf.open("pdf", laid.convert_to_pdf()) as pages:
                out.insert_pdf(pages)
    if out.page_count == 0:
        raise ParseError("corrupt or empty pptx file: no visible slides")
    return out.tobytes(garbage=3, deflate=True), (width, height)
