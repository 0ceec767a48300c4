"""The PDF rendition of a non-PDF upload: MuPDF lays out Word, PowerPoint, Excel, HTML, EPUB, XPS
and text files as pages and writes them as a PDF.

The ingest reads its text from this PDF, not from the original, so every chunk's page is a page
the viewer can show and highlight (pdf.js renders the rendition exactly as it was measured); the
original stays the download. A Word document, an Excel workbook and a Markdown file are laid out from
the HTML services/ingest/word.py, workbook.py and markdown.py write of them, not by MuPDF's readers,
which drop their tables (or print Markdown's markup); an HTML upload's tables are ruled first
(html_pages.py), so that they are read as rows.
"""

from __future__ import annotations

from collections.abc import Callable

from services.ingest.html_pages import ruled_html
from services.ingest.markdown import markdown_html
from services.ingest.opening import opened
from services.ingest.word import word_html
from services.ingest.workbook import workbook_html
from shared.documents.filetype import ParseError

# The formats whose rendition is laid out from HTML written here (or, for HTML, ruled here), and the
# page size to lay it on, not by MuPDF's own reader of them (which drops or leaves unruled their
# tables, and prints Markdown's markup).
WRITTEN: dict[str, Callable[[bytes], tuple[str, tuple[float, float]]]] = {
    "docx": word_html,
    "xlsx": workbook_html,
    "md": markdown_html,
    "html": ruled_html,
    "xhtml": ruled_html,
}


def to_pdf(data: bytes, filetype: str, *, max_pages: int) -> bytes:
    """The pages of `data` (a sniffed `filetype` other than pdf) as PDF bytes."""
    page_size, laid_out = None, filetype
    written = WRITTEN.get(filetype)
    if written is not None:
        text, page_size = written(data)
        data, laid_out = text.encode(), "xhtml" if filetype == "xhtml" else "html"
    no_pages = f"corrupt or empty {filetype} file: no pages"
    with opened(data, laid_out, max_pages=max_pages, no_pages=no_pages, page_size=page_size) as doc:
        try:
            return doc.convert_to_pdf()
        except Exception as exc:
            raise ParseError(f"corrupt {filetype} file: its pages could not be laid out ({exc})") from exc
