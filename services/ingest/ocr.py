"""OCR of pages that have no text (scans, scanned annexes), with Tesseract through PyMuPDF.

Only pages the parser found empty are touched, so a text PDF costs nothing here. A page is
rendered at PP_OCR_DPI; Tesseract's orientation detection (`--psm 0`) says whether its content
is sideways or upside down, and the page is turned upright before recognition. The recognised
page replaces the scanned one in the document's PDF: the same image with an invisible text layer
(`Pixmap.pdfocr_tobytes`), so the viewer shows the scan and can highlight a quote on it.

Tesseract is the one extra system package (Debian `tesseract-ocr`, docs/ingest.md). Without it,
or when a page yields nothing, the page stays textless and the caller warns about it by number.
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
from dataclasses import dataclass

import pymupdf

log = logging.getLogger(__name__)

OSD_DPI = 150
OSD_TIMEOUT_S = 20
_ROTATE = re.compile(rb"Rotate:\s*(\d+)")


@dataclass
class OcrResult:
    pdf: bytes
    read: list[int]  # 1-based page numbers that now have text
    unread: list[int]  # pages still without text


def tesseract_available() -> bool:
    return shutil.which("tesseract") is not None


def _upright_turn(page: pymupdf.Page) -> int:
    """Degrees (clockwise) that turn the page's content upright, by Tesseract's OSD; 0 if unsure."""
    png = page.get_pixmap(dpi=OSD_DPI).tobytes("png")
    try:
        done = subprocess.run(
            ["tesseract", "stdin", "stdout", "--psm", "0"], input=png, capture_output=True, timeout=OSD_TIMEOUT_S
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.warning("orientation detection failed on page %d: %s", page.number + 1, exc)
        return 0
    match = _ROTATE.search(done.stdout)
    return int(match.group(1)) % 360 if match else 0


def read_pages(pdf: bytes, numbers: list[int], *, languages: str, dpi: int) -> OcrResult:
    """Recognise the text of pages `numbers` (1-based) of `pdf`; returns the new PDF."""
    if not numbers or not tesseract_available():
        return OcrResult(pdf=pdf, read=[], unread=list(numbers))
    tessdata = pymupdf.get_tessdata()
    read, unread = [], []
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        for number in numbers:
            page = doc[number - 1]
            turn = _upright_turn(page)
            if turn:
                page.set_rotation((page.rotation + turn) % 360)
            pix = page.get_pixmap(dpi=dpi)
            try:
                scanned = pix.pdfocr_tobytes(language=languages, tessdata=tessdata)
            except Exception as exc:  # a language that is not installed, an engine failure
                log.warning("OCR failed on page %d: %s", number, exc)
                unread.append(number)
                continue
            with pymupdf.open(stream=scanned, filetype="pdf") as recognised:
                if not recognised[0].get_text().strip():
                    unread.append(number)
                    continue
                doc.insert_pdf(recognised, start_at=number - 1)
            doc.delete_page(number)  # the original, now right after its replacement
            read.append(number)
        out = doc.tobytes(garbage=1, deflate=True) if read else pdf
    return OcrResult(pdf=out, read=read, unread=unread)
