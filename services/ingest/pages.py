"""An upload as pages: what the ingest worker chunks, and what the viewer shows.

1. The type is sniffed from the content (shared/documents/filetype.py); a file named .pdf must
   be one.
2. A non-PDF becomes a PDF rendition (rendition.py), and its text is read from that PDF, so
   citations carry pages the viewer can open.
3. Pages without text go to OCR (ocr.py); only they, so a text PDF pays nothing. A PDF changed by
   OCR is kept as the rendition too (the scan with its recognised text, for the highlight).
   At most PP_OCR_MAX_PAGES pages of a document are read (the first ones): OCR costs seconds a
   page, and a 2,000-page scan would hold an ingest slot for hours.
4. Pages that are still empty become a warning naming them and why (OCR missing, found nothing,
   or past the cap); a document with no text at all fails with that reason.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from services.ingest.ocr import read_pages, tesseract_available
from services.ingest.parse import ParsedDocument, checked_type, parse_document
from services.ingest.rendition import LAID_OUT_HERE, to_pdf
from shared.documents.filetype import ParseError, mime_of


@dataclass(frozen=True)
class OpenedDocument:
    mime: str  # the upload's true type
    pdf: bytes  # the pages: the original PDF, or the rendition
    rendition: bytes | None  # a PDF made here (non-PDF upload, or pages added by OCR)
    parsed: ParsedDocument
    textless: list[int]  # 1-based numbers of pages without text
    ocr_read: tuple[int, ...] = ()
    ocr_tried: bool = False
    ocr_skipped: tuple[int, ...] = ()  # textless pages past PP_OCR_MAX_PAGES, never given to OCR
    ocr_cap: int = 0

    @property
    def warning(self) -> str | None:
        if not self.textless:
            return None
        parts = []
        unread = [n for n in self.textless if n not in set(self.ocr_skipped)]
        if unread:
            why = "OCR found no text on them" if self.ocr_tried else "OCR is not available (install tesseract-ocr)"
            parts.append(f"{page_list(unread)} {'has' if len(unread) == 1 else 'have'} no text: {why}")
        if self.ocr_skipped:
            skipped = list(self.ocr_skipped)
            parts.append(
                f"{page_list(skipped)} {'was' if len(skipped) == 1 else 'were'} not read: OCR reads at most"
                f" {self.ocr_cap} page{'' if self.ocr_cap == 1 else 's'} of a document (PP_OCR_MAX_PAGES)"
            )
        return "; ".join(parts)


def page_list(numbers: list[int]) -> str:
    """'page 3' or 'pages 1-4, 7' (runs collapsed, so a 300-page scan is one short line)."""
    runs: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        runs.append(f"{start}" if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ("page " if len(numbers) == 1 else "pages ") + ", ".join(runs)


def open_pages(data: bytes, filename: str, *, max_pages: int) -> OpenedDocument:
    filetype = checked_type(data, filename)
    rendition = None if filetype == "pdf" else to_pdf(data, filetype, max_pages=max_pages)
    pdf = rendition or data
    parsed = parse_document(
        pdf, "pages.pdf", max_pages=max_pages, require_text=False, laid_out_here=filetype in LAID_OUT_HERE
    )
    textless = [p.number for p in parsed.pages if not p.text.strip()]
    return OpenedDocument(mime=mime_of(filetype), pdf=pdf, rendition=rendition, parsed=parsed, textless=textless)


def read_textless_pages(opened: OpenedDocument, languages: str, dpi: int, max_pages: int) -> OpenedDocument:
    """OCR of the first `max_pages` textless pages; the document's pages re-read where OCR found
    text. The pages past the cap stay textless and are named in the warning."""
    if not opened.textless or not tesseract_available():
        return opened
    chosen, skipped = opened.textless[:max_pages], tuple(opened.textless[max_pages:])
    capped = replace(opened, ocr_skipped=skipped, ocr_cap=max_pages)
    result = read_pages(opened.pdf, chosen, languages=languages, dpi=dpi)
    if not result.read:
        return replace(capped, ocr_tried=bool(chosen))
    parsed = parse_document(
        result.pdf, "pages.pdf", max_pages=len(opened.parsed.pages), require_text=False,
        laid_out_here=any(opened.mime == mime_of(kind) for kind in LAID_OUT_HERE),
    )  # fmt: skip
    textless = [p.number for p in parsed.pages if not p.text.strip()]
    return replace(
        capped, pdf=result.pdf, rendition=result.pdf, parsed=parsed, textless=textless, ocr_read=tuple(result.read),
        ocr_tried=True,
    )  # fmt: skip


def finished_pages(opened: OpenedDocument) -> ParsedDocument:
    """The pages to chunk, or the reason there is nothing to chunk."""
    if len(opened.textless) == opened.parsed.page_count:
        if opened.ocr_skipped and not opened.ocr_read:
            raise ParseError(f"no extractable text: the pages are images; {opened.warning}")
        if opened.ocr_tried:
            raise ParseError("no extractable text: the pages are images and OCR found no text on them")
        raise ParseError("no extractable text: the pages are images and OCR is not available (install tesseract-ocr)")
    return replace(opened.parsed, mime=opened.mime)
