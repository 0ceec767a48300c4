"""Opening an upload with MuPDF, and the refusals every reader of it shares: unreadable, encrypted,
without pages, or longer than the page limit (checked before any page is read)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pymupdf

from shared.documents.filetype import ParseError


@contextmanager
def opened(
    data: bytes, filetype: str, *, max_pages: int, no_pages: str, page_size: tuple[float, float] | None = None
) -> Iterator[pymupdf.Document]:
    """`data` as a MuPDF document, or a `ParseError` saying why it cannot be read; `no_pages` is the
    reason given for a document without pages. A reflowable document (HTML) is laid out on
    `page_size` (points) where one is given, before its pages are counted."""
    try:
        doc = pymupdf.open(stream=data, filetype=filetype)
    except Exception as exc:
        raise ParseError(f"corrupt or unreadable {filetype} file: {exc}") from exc
    with doc:
        if doc.needs_pass or doc.is_encrypted:
            raise ParseError("encrypted document: remove the password and upload again")
        try:
            if page_size is not None:
                doc.layout(width=page_size[0], height=page_size[1])
            count = doc.page_count
        except Exception as exc:
            raise ParseError(f"corrupt {filetype} file: {exc}") from exc
        if count == 0:
            raise ParseError(no_pages)
        if count > max_pages:
            raise ParseError(f"too many pages: {count} (limit {max_pages})")
        yield doc
