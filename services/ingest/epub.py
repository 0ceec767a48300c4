"""An EPUB upload with its tables ruled, so that they are read as rows (services/ingest/html_pages.py).

An EPUB is a ZIP of XHTML chapters that MuPDF lays out itself (its spine, styles and pictures); only
the chapters change: the rules go into each one's head. The package is read as untrusted input: a
member larger than 64 MB uncompressed, or more than 512 MB in all, is refused with the reason, as is
a damaged or encrypted member (the EPUB's own DRM aside, which MuPDF refuses on opening).
"""

from __future__ import annotations

import io
import zipfile
import zlib

from services.ingest.html_pages import LETTER, with_ruled_tables
from shared.documents.filetype import ParseError

MAX_MEMBER_BYTES = 64 * 1024 * 1024
MAX_PACKAGE_BYTES = 512 * 1024 * 1024
CHAPTERS = (".xhtml", ".html", ".htm")


def _read(package: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    if info.file_size > MAX_MEMBER_BYTES:
        limit = MAX_MEMBER_BYTES // 2**20
        raise ParseError(f"corrupt epub file: {info.filename} is larger than {limit} MB uncompressed")
    try:
        return package.read(info)
    except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError) as exc:
        raise ParseError(f"corrupt epub file: {info.filename} cannot be read ({exc})") from exc


def ruled_epub(data: bytes) -> tuple[bytes, tuple[float, float]]:
    """The EPUB with every chapter's tables ruled, and the page size to lay it out on."""
    try:
        package = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ParseError(f"corrupt epub file: {exc}") from exc
    out = io.BytesIO()
    with package, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as ruled:
        members = package.infolist()
        if sum(info.file_size for info in members) > MAX_PACKAGE_BYTES:
            raise ParseError(f"corrupt epub file: larger than {MAX_PACKAGE_BYTES // 2**20} MB uncompressed")
        # The mimetype member stays first and stored, as the format requires.
        for info in sorted(members, key=lambda member: member.filename != "mimetype"):
            content = _read(package, info)
            if info.filename.lower().endswith(CHAPTERS):
                content = with_ruled_tables(content.decode("utf-8", errors="replace")).encode()
            stored = zipfile.ZIP_STORED if info.filename == "mimetype" else zipfile.ZIP_DEFLATED
            ruled.writestr(info.filename, content, compress_type=stored)
    return out.getvalue(), LETTER
