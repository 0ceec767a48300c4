"""The PDF rendition of a non-PDF upload: MuPDF lays out Word, PowerPoint, Excel, HTML, EPUB, XPS
and text files as pages and writes them as a PDF.

The ingest reads its text from this PDF, not from the original, so every chunk's page is a page
the viewer can show and highlight (pdf.js renders the rendition exactly as it was measured); the
original stays the download.
"""

from __future__ import annotations

import pymupdf

from shared.documents.filetype import ParseError


def to_pdf(data: bytes, filetype: str, *, max_pages: int) -> bytes:
    """The pages of `data` (a sniffed `filetype` other than pdf) as PDF bytes."""
    try:
        doc = pymupdf.open(stream=data, filetype=filetype)
    except Exception as exc:
        raise ParseError(f"corrupt or unreadable {filetype} file: {exc}") from exc
    with doc:
        if doc.needs_pass or doc.is_encrypted:
            raise ParseError("encrypted document: remove the password and upload again")
        try:
            count = doc.page_count
        except Exception as exc:
            raise ParseError(f"corrupt {filetype} file: {exc}") from exc
        if count == 0:
            raise ParseError(f"corrupt or empty {filetype} file: no pages")
        if count > max_pages:
            raise ParseError(f"too many pages: {count} (limit {max_pages})")
        try:
            return doc.convert_to_pdf()
        except Exception as exc:
            raise ParseError(f"corrupt {filetype} file: its pages could not be laid out ({exc})") from exc
