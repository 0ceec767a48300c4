"""Turning uploaded bytes into page texts with PyMuPDF, type sniffed from content.

Headings are detected from font size: a line set clearly larger than the page body (or bold
and short) becomes the `section` of the text that follows it.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

import pymupdf


class ParseError(Exception):
    """The file cannot become text; the message is shown to the user as the failure reason."""


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
    return _MIME[filetype]


def _page_text(page: pymupdf.Page) -> Page:
    data = page.get_text("dict", sort=True)
    lines: list[tuple[str, float, bool]] = []
    for block in data.get("blocks", []):
        if block.get("type") != 0:
            continue
        for line in block.get("lines", []):
            spans = [s for s in line.get("spans", []) if s.get("text", "").strip()]
            if not spans:
                continue
            text = "".join(s["text"] for s in line["spans"]).strip()
            size = max(s["size"] for s in spans)
            bold = all(s.get("flags", 0) & 16 for s in spans)
            lines.append((text, size, bold))
        lines.append(("", 0.0, False))
    sizes = [size for text, size, _ in lines if text]
    body = statistics.median(sizes) if sizes else 0.0
    parts: list[str] = []
    headings: list[tuple[int, str]] = []
    offset = 0
    for text, size, bold in lines:
        if not text:
            if parts and parts[-1] != "\n":
                parts.append("\n")
                offset += 1
            continue
        is_heading = len(text) <= 120 and (size >= body * 1.15 or (bold and len(text) <= 80))
        if is_heading and any(c.isalpha() for c in text):
            headings.append((offset, text))
        parts.append(text + "\n")
        offset += len(text) + 1
    return Page(number=page.number + 1, text="".join(parts).strip("\n"), headings=headings)


def parse_document(data: bytes, filename: str, *, max_pages: int) -> ParsedDocument:
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
    try:
        doc = pymupdf.open(stream=data, filetype=filetype)
    except Exception as exc:
        raise ParseError(f"corrupt or unreadable {filetype} file: {exc}") from exc
    with doc:
        if doc.needs_pass or doc.is_encrypted:
            raise ParseError("encrypted document: remove the password and upload again")
        if doc.page_count == 0:
            raise ParseError(f"corrupt {filetype} file: no readable pages")
        if doc.page_count > max_pages:
            raise ParseError(f"too many pages: {doc.page_count} (limit {max_pages})")
        try:
            pages = [_page_text(page) for page in doc]
        except Exception as exc:
            raise ParseError(f"corrupt {filetype} file: {exc}") from exc
    if not any(p.text.strip() for p in pages):
        raise ParseError("no extractable text (scanned or empty document)")
    return ParsedDocument(mime=mime_of(filetype), pages=pages)
