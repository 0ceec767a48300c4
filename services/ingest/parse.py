"""Turning uploaded bytes into page texts with PyMuPDF, type sniffed from content (shared.documents).

Headings come from MuPDF's layout analysis: a block set larger than the body text (or short and
all bold) becomes the `section` of the text that follows it.

MuPDF joins the lines of a block, so a heading set on its own line above its paragraph can arrive
glued to it ("Exceptions Exceptions require written approval…"). A block that opens with a bold
run followed by more text, or with a short phrase that its next words repeat, is cut there: the
phrase becomes a heading of its own and the paragraph keeps its sentence (issue #27).

A page with a table (services/ingest/tables.py) gets its rows, each with its label and column
headers, as sentences after the page's text; the table's bare figures, which MuPDF gives as blocks
of their own ("28,408", "$"), are left out, since without their row and column they say nothing.
A ruled table of words (services/ingest/ruled_tables.py) is read as its rows where it stands on the
page, in place of its cells' blocks.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import pymupdf
from pymupdf import mupdf

from services.ingest.fiscal_headers import with_fiscal_periods
from services.ingest.opening import opened
from services.ingest.ruled_tables import Header, WordTable, continued_header, word_tables
from services.ingest.tables import table_rows
from shared.documents.filetype import ParseError, mime_of, sniff_type
from shared.text.line_breaks import rejoined
from shared.text.years import column_years


@dataclass
class Page:
    number: int
    text: str
    headings: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class ParsedDocument:
    mime: str
    pages: list[Page]

    @property
    def page_count(self) -> int:
        return len(self.pages)


# MuPDF's XHTML output of a page's structured text: block elements in reading order, headings as
# <h1>…<h6> (set larger than the body text) and bold runs as <b>. It costs a fraction of the span
# dictionary that font-size heuristics would need, which keeps parsing fast (bench/ingest.py).
_BLOCK = re.compile(r"<(h[1-6]|p)\b[^>]*>(.*?)</\1>", re.S)
_TAG = re.compile(r"<[^>]+>")
# Runs inside a line ("iPhone<sup>®</sup>", "Common Stock<b>, </b>$0.00001") join without a space,
# as the page prints them: a quote must read as the page does.
_INLINE_TAG = re.compile(r"</?(?:b|i|u|s|em|strong|sup|sub|span|small|big|tt|code|font|a)\b[^>]*>")
_BOLD_ONLY = re.compile(r"^\s*<b>(?:(?!</b>).)*</b>\s*$", re.S)
# Whitespace is collapsed anyway, so MuPDF need not preserve it (~10 % of the parse time). A compound
# hyphenated at a line's end keeps its hyphen (shared/text/line_breaks.py): MuPDF's dehyphenation
# drops it ("assetbacked", "Forwardlooking"), which no page prints.
_TEXT_FLAGS = pymupdf.TEXT_MEDIABOX_CLIP
_LEADING_BOLD = re.compile(r"^\s*<b>((?:(?!</b>).)*)</b>(.*\S.*)$", re.S)
MAX_HEADING_CHARS = 120
MAX_BOLD_HEADING_CHARS = 80
MAX_ECHO_WORDS = 8
# A ruled table at least this share of the page's width is read as rows in place of its blocks.
WIDE_TABLE = 0.5
# Punctuation that ends a run-in label inside its sentence rather than a heading above it.
_LABEL_ENDS = (":", ".", ";", ",", "—", "–", "-")


def plain_text(inner: str) -> str:
    """The text of a block of MuPDF's XHTML: entities decoded, whitespace collapsed, a compound its
    line's end broke written whole."""
    return rejoined(" ".join(html.unescape(_TAG.sub(" ", _INLINE_TAG.sub("", inner))).split()))


def page_xhtml(textpage: pymupdf.TextPage) -> str:
    r"""MuPDF's XHTML of a text page, decoded as the UTF-8 it is. PyMuPDF's `extractXHTML` decodes it
    as Python escapes, so a page's literal backslash sequence was read as one ("C:\users" lost its
    "\u", a printed "\u00e9" became "é"); MuPDF writes every non-ASCII character as an entity anyway."""
    buffer = mupdf.fz_new_buffer(4096)
    out = mupdf.FzOutput(buffer)
    mupdf.fz_print_stext_page_as_xhtml(out, textpage.this, 0)
    out.fz_close_output()
    return bytes(mupdf.fz_buffer_extract_copy(buffer)).decode("utf-8", errors="replace")


def run_in_heading(inner: str) -> tuple[str, str] | None:
    """(heading, paragraph) of a block that opens with a heading glued to its paragraph, else None.
    A bold run its sentence goes on from in lower case is never a heading above it: it is the
    sentence's subject ("**DarkMode** enables the HTML report…", "**Jen-Hsun Huang** co-founded
    NVIDIA…") or the first letters of a word ("**N**ote 1 — …"), so only an echo can cut it."""
    bold = _LEADING_BOLD.match(inner)
    if bold:
        heading, rest = plain_text(bold.group(1)), plain_text(bold.group(2))
        if rest.startswith(_LABEL_ENDS):
            # A bold label its sentence goes on from ("Constant currency: financial results …",
            # "Problem: Cannot log in", "3. Vesting. Subject to …"): cut off, the rest would be quoted
            # as ": financial results …", without what it defines.
            return None
        short = len(heading) <= MAX_BOLD_HEADING_CHARS and any(c.isalpha() for c in heading)
        if heading and rest and short and not rest[:1].islower():
            return heading, rest
    words = plain_text(inner).split()
    for n in range(1, MAX_ECHO_WORDS + 1):
        if len(words) > 2 * n and words[:n] == words[n : 2 * n] and any(c.isalpha() for c in words[0]):
            return " ".join(words[:n]), " ".join(words[n:])
    return None


def _bands(
    page: pymupdf.Page, tables: list[WordTable], *, laid_out_here: bool
) -> list[tuple[pymupdf.Rect, WordTable | None]]:
    """The page cut into horizontal bands around its wide ruled tables of words, each band with the
    table that follows it: the tables' cells are read as rows instead of MuPDF's blocks. A narrow
    table may have text beside it, so its blocks stay and its rows follow the page's text; not in a
    rendition laid out here, whose HTML flows every table between blocks, never beside them."""
    bands: list[tuple[pymupdf.Rect, WordTable | None]] = []
    top = page.rect.y0
    for table in tables:
        wide = laid_out_here or table.area.width >= WIDE_TABLE * page.rect.width
        if wide and table.area.y0 >= top:
            bands.append((pymupdf.Rect(page.rect.x0, top, page.rect.x1, table.area.y0), table))
            top = table.area.y1
    bands.append((pymupdf.Rect(page.rect.x0, top, page.rect.x1, page.rect.y1), None))
    return bands


def _blocks(xhtml: str, *, figures_page: bool) -> Iterator[tuple[str, bool]]:
    """(text, is heading) of each block of MuPDF's XHTML, a heading glued to its paragraph cut off;
    on a page with rows of figures, the bare figures' blocks are left out, but not a line of years
    over a table printed without its grid: the rows printed under it say no period without it."""
    for tag, inner in _BLOCK.findall(xhtml):
        text = plain_text(inner)
        if not text or figures_page and not any(c.isalpha() for c in text) and not column_years(text):
            continue
        glued = run_in_heading(inner) if tag == "p" else None
        if glued:
            yield glued[0], True
            yield glued[1], False
            continue
        heading = tag != "p" or (_BOLD_ONLY.match(inner) is not None and len(text) <= MAX_BOLD_HEADING_CHARS)
        yield text, heading and len(text) <= MAX_HEADING_CHARS and any(c.isalpha() for c in text)


def _page_text(
    page: pymupdf.Page, *, laid_out_here: bool = False, carried: Header | None = None
) -> tuple[Page, Header | None]:
    """The page's text and headings, and the header a table continued on the next page is read under."""
    if laid_out_here:
        # Every table of a rendition drawn here is ruled, so the ruled tables are read first and the
        # rows of figures only outside them: a table of words with a column of numbers (a version
        # attribute's "Example: 1") is not taken for a table of figures.
        found = word_tables(page, layout_model=False, carried=carried)
        rows = table_rows(page, outside=[table.area for table in found if table.rows])
    else:
        rows = table_rows(page)
        found = [] if rows else word_tables(page, carried=carried)
    tables = [table for table in found if table.rows]
    bands = _bands(page, tables, laid_out_here=laid_out_here)
    pieces: list[tuple[str, bool]] = []
    for band, table in bands:
        xhtml = page_xhtml(page.get_textpage(flags=_TEXT_FLAGS, clip=None if len(bands) == 1 else band))
        pieces.extend(_blocks(xhtml, figures_page=bool(rows)))
        pieces.extend((row, False) for row in (table.rows if table else []))
    read_in_place = {id(table) for _, table in bands}
    narrow = [row for table in tables if id(table) not in read_in_place for row in table.rows]
    pieces.extend((row, False) for row in rows + narrow)
    headings: list[tuple[int, str]] = []
    offset = 0
    for text, heading in pieces:
        if heading:
            headings.append((offset, text))
        offset += len(text) + 2
    text = "\n\n".join(text for text, _ in pieces)
    return Page(number=page.number + 1, text=text, headings=headings), continued_header(page, found)


def checked_type(data: bytes, filename: str) -> str:
    """The sniffed type of `data`; a file named .pdf must be one, so a mislabelled upload is named as such."""
    if not data:
        raise ParseError("empty file")
    claims_pdf = filename.lower().endswith(".pdf")
    try:
        filetype = sniff_type(data, filename)
    except ParseError as exc:
        if claims_pdf:
            raise ParseError("not a PDF: the content does not start with a %PDF- header") from exc
        raise
    if claims_pdf and filetype != "pdf":
        raise ParseError(f"not a PDF: the file is named .pdf but its content is {filetype}")
    return filetype


def parse_document(
    data: bytes, filename: str, *, max_pages: int, require_text: bool = True, laid_out_here: bool = False
) -> ParsedDocument:
    """Page texts of `data`; `require_text=False` lets pages without text through (services/ingest/pages.py
    sends them to OCR). `laid_out_here` says `data` is a rendition laid out from HTML written or ruled
    here (services/ingest/rendition.py): its tables are found by their rules alone, since it draws
    every table in full and PyMuPDF's layout model (half a second a page, ruled_tables.py) would find
    nothing more."""
    filetype = checked_type(data, filename)
    with opened(data, filetype, max_pages=max_pages, no_pages=f"corrupt {filetype} file: no readable pages") as doc:
        try:
            pages = []
            carried = None
            for page in doc.pages():
                text, carried = _page_text(page, laid_out_here=laid_out_here, carried=carried)
                pages.append(text)
        except Exception as exc:
            raise ParseError(f"corrupt {filetype} file: {exc}") from exc
    if require_text and not any(p.text.strip() for p in pages):
        raise ParseError("no extractable text (scanned or empty document)")
    return ParsedDocument(mime=mime_of(filetype), pages=with_fiscal_periods(pages))
