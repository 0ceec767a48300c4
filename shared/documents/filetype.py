"""File types sniffed from content: the gateway rejects what no parser reads, the ingest worker
opens the rest with the right PyMuPDF filetype. Both give the user the same reason for a refusal.
"""

from __future__ import annotations


class ParseError(Exception):
    """The file cannot become text; the message is shown to the user as the failure reason."""


_TEXT_TYPES = {".txt": "txt", ".md": "txt", ".markdown": "txt", ".html": "html", ".htm": "html", ".xhtml": "xhtml"}
_MIME = {
    "pdf": "application/pdf",
    "epub": "application/epub+zip",
    "xps": "application/vnd.ms-xpsdocument",
    "txt": "text/plain",
    "html": "text/html",
    "xhtml": "application/xhtml+xml",
}


def sniff_type(data: bytes, filename: str) -> str:
    """PyMuPDF filetype from the bytes; the filename only disambiguates text flavours."""
    head = data[:1024]
    if head.startswith(b"%PDF-") or b"%PDF-" in head[:256]:
        return "pdf"
    if head.startswith(b"PK\x03\x04") and b"application/epub+zip" in data[:200]:
        return "epub"
    if head.startswith(b"PK\x03\x04"):
        return "xps"
    try:
        text = data[:65536].decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < 65530:
            raise ParseError("unsupported file type: not a PDF, EPUB, XPS, HTML or UTF-8 text") from exc
        text = data[: exc.start].decode("utf-8")
    if "\x00" in text:
        raise ParseError("unsupported file type: binary content that is not a PDF, EPUB or XPS")
    lowered = text.lstrip().lower()
    if lowered.startswith(("<!doctype html", "<html")):
        return "html"
    suffix = "." + filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    return _TEXT_TYPES.get(suffix, "txt")


def mime_of(filetype: str) -> str:
    """The MIME type stored for a sniffed filetype."""
    return _MIME[filetype]
