"""The PDF rendition of a non-PDF upload: MuPDF lays out Word, PowerPoint, Excel, HTML, EPUB, XPS
and text files as pages and writes them as a PDF.

The ingest reads its text from this PDF, not from the original, so every chunk's page is a page
the viewer can show and highlight (pdf.js renders the rendition exactly as it was measured); the
original stays the download. A Word document, an Excel workbook, a Markdown file and a PowerPoint
deck are laid out from the HTML services/ingest/word.py, workbook.py, markdown.py and slides.py write
of them, not by MuPDF's readers,
which drop their tables (or print Markdown's markup); an HTML or EPUB upload's tables are ruled
first (html_pages.py, epub.py), so that they are read as rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from services.ingest.epub import ruled_epub
from services.ingest.html_pages import ruled_html
from services.ingest.markdown import markdown_html
from services.ingest.opening import opened
from services.ingest.slides import slides_pdf
from services.ingest.word import word_html
from services.ingest.workbook import workbook_html
from shared.documents.filetype import ParseError


@dataclass(frozen=True)
class Layout:
    """What MuPDF lays out in place of an upload: bytes, their MuPDF type, the page size (points)."""

    data: bytes
    filetype: str
    page_size: tuple[float, float]


HtmlWriter = Callable[[bytes], tuple[str, tuple[float, float]]]


def _from_html(write: HtmlWriter, filetype: str = "html") -> Callable[[bytes], Layout]:
    def layout(data: bytes) -> Layout:
        text, page_size = write(data)
        return Layout(text.encode(), filetype, page_size)

    return layout


def _repacked(data: bytes) -> Layout:
    epub, page_size = ruled_epub(data)
    return Layout(epub, "epub", page_size)


def _slides(data: bytes) -> Layout:
    pdf, page_size = slides_pdf(data)
    return Layout(pdf, "pdf", page_size)


# The formats laid out here rather than by MuPDF's own reader of them (which drops or leaves unruled
# their tables, and prints Markdown's markup): from HTML written here (Word, Excel, Markdown, and
# PowerPoint a slide at a time), or the upload itself with its tables ruled (HTML, XHTML, EPUB).
LAID_OUT_HERE: dict[str, Callable[[bytes], Layout]] = {
    "docx": _from_html(word_html),
    "xlsx": _from_html(workbook_html),
    "md": _from_html(markdown_html),
    "html": _from_html(ruled_html),
    "xhtml": _from_html(ruled_html, "xhtml"),
    "epub": _repacked,
    "pptx": _slides,
}


def to_pdf(data: bytes, filetype: str, *, max_pages: int) -> bytes:
    """The pages of `data` (a sniffed `filetype` other than pdf) as PDF bytes."""
    page_size, laid_out = None, filetype
    lay_out = LAID_OUT_HERE.get(filetype)
    if lay_out is not None:
        layout = lay_out(data)
        data, laid_out, page_size = layout.data, layout.filetype, layout.page_size
    no_pages = f"corrupt or empty {filetype} file: no pages"
    with opened(data, laid_out, max_pages=max_pages, no_pages=no_pages, page_size=page_size) as doc:
        if laid_out == "pdf":
            return data  # a deck's slides are already PDF pages (slides.py): only their count is checked
        try:
            return doc.convert_to_pdf()
        except Exception as exc:
            raise ParseError(f"corrupt {filetype} file: its pages could not be laid out ({exc})") from exc
