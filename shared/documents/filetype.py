"""File types sniffed from content: the gateway rejects what no parser reads, the ingest worker
opens the rest with the right PyMuPDF filetype. Both give the user the same reason for a refusal.

ZIP containers are told apart by their members, never by the file name: a Word, PowerPoint or
Excel file by its main part (`word/document.xml`, `ppt/presentation.xml`, `xl/workbook.xml`),
an EPUB by its `mimetype` member, an XPS file by its fixed-document sequence. Any other ZIP is
refused with that reason rather than handed to a parser that would guess.
"""

from __future__ import annotations

import io
import zipfile


class ParseError(Exception):
    """The file cannot become text; the message is shown to the user as the failure reason."""


_TEXT_TYPES = {".txt": "txt", ".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".xhtml": "xhtml"}
_MIME = {
    "pdf": "application/pdf",
    "epub": "application/epub+zip",
    "xps": "application/vnd.ms-xpsdocument",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "txt": "text/plain",
    "md": "text/markdown",
    "html": "text/html",
    "xhtml": "application/xhtml+xml",
}
# The main part of each Office Open XML type (ECMA-376 part 2 names them in [Content_Types].xml).
_OFFICE_PARTS = {"word/document.xml": "docx", "ppt/presentation.xml": "pptx", "xl/workbook.xml": "xlsx"}


def _zip_type(data: bytes) -> str:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            if "mimetype" in names and archive.read("mimetype").strip() == b"application/epub+zip":
                return "epub"
    except (zipfile.BadZipFile, zipfile.LargeZipFile, KeyError, OSError) as exc:
        raise ParseError(f"corrupt or truncated ZIP file: {exc}") from exc
    if "[Content_Types].xml" in names:
        for part, filetype in _OFFICE_PARTS.items():
            if part in names:
                return filetype
    if any(name.lower().endswith(".fdseq") for name in names):
        return "xps"
    raise ParseError("unsupported file type: a ZIP archive that is not a Word, PowerPoint, Excel, EPUB or XPS file")


def sniff_type(data: bytes, filename: str) -> str:
    """PyMuPDF filetype from the bytes; the filename only disambiguates text flavours."""
    head = data[:1024]
    if head.startswith(b"%PDF-") or b"%PDF-" in head[:256]:
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        return _zip_type(data)
    try:
        text = data[:65536].decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < 65530:
            raise ParseError(
                "unsupported file type: not a PDF, Word, PowerPoint, Excel, EPUB, XPS, HTML or UTF-8 text file"
            ) from exc
        text = data[: exc.start].decode("utf-8")
    if "\x00" in text:
        raise ParseError("unsupported file type: binary content that is not a PDF, Office, EPUB or XPS file")
    lowered = text.lstrip().lower()
    if lowered.startswith(("<!doctype html", "<html")):
        return "html"
    suffix = "." + filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    return _TEXT_TYPES.get(suffix, "txt")


def mime_of(filetype: str) -> str:
    """The MIME type stored for a sniffed filetype."""
    return _MIME[filetype]
