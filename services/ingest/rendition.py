"""The PDF rendition of a non-PDF upload: MuPDF lays out Word, PowerPoint, Excel, HTML, EPUB, XPS
and text files as pages and writes them as a PDF.

The ingest reads its text from this PDF, not from the original, so every chunk's page is a page
the viewer can show and highlight (pdf.js renders the rendition exactly as it was measured); the
original stays the download. A Word document is laid out from the HTML services/ingest/word.py
writes of it, on its own page size, not by MuPDF's reader of .docx, which drops its tables.
"""

from __future__ import annotations

from services.ingest.opening import opened
from services.ingest.word import word_html
from shared.documents.filetype import ParseError


def to_pdf(data: bytes, filetype: str, *, max_pages: int) -> bytes:
    """The pages of `data` (a sniffed `filetype` other than pdf) as PDF bytes."""
    page_size, laid_out = None, filetype
    if filetype == "docx":
        text, page_size = word_html(data)
        data, laid_out = text.encode(), "html"
    no_pages = f"corrupt or empty {filetype} file: no pages"
    with opened(data, laid_out, max_pages=max_pages, no_pages=no_pages, page_size=page_size) as doc:
        try:
            return doc.convert_to_pdf()
        except Exception as exc:
            raise ParseError(f"corrupt {filetype} file: its pages could not be laid out ({exc})") from exc
