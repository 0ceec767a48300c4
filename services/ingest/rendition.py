"""The PDF rendition of a non-PDF upload: MuPDF lays out Word, PowerPoint, Excel, HTML, EPUB, XPS
and text files as pages and writes them as a PDF.

The ingest reads its text from this PDF, not from the original, so every chunk's page is a page
the viewer can show and highlight (pdf.js renders the rendition exactly as it was measured); the
original stays the download.
"""

from __future__ import annotations

from services.ingest.opening import opened
from shared.documents.filetype import ParseError


def to_pdf(data: bytes, filetype: str, *, max_pages: int) -> bytes:
    """The pages of `data` (a sniffed `filetype` other than pdf) as PDF bytes."""
    with opened(data, filetype, max_pages=max_pages, no_pages=f"corrupt or empty {filetype} file: no pages") as doc:
        try:
            return doc.convert_to_pdf()
        except Exception as exc:
            raise ParseError(f"corrupt {filetype} file: its pages could not be laid out ({exc})") from exc
