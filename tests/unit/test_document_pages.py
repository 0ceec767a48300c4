"""Uploads as pages: Office files sniffed by content and laid out as a PDF, scanned pages read by
Tesseract (upright or turned), and precise reasons for what cannot become text."""

from __future__ import annotations

import io
import shutil
import zipfile

import docx
import pymupdf
import pytest

from services.ingest.pages import finished_pages, open_pages, page_list, read_textless_pages
from shared.documents.filetype import ParseError, mime_of, sniff_type
from tests.conftest import EXAMPLES

DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract-ocr is not installed")
SCANNED = ["Records of job applicants are kept for six months.", "Breaches are reported within 72 hours."]


def zip_of(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def word_document(paragraphs: list[str], *, heading: str = "Data retention", picture: bytes | None = None) -> bytes:
    document = docx.Document()
    document.add_heading(heading, level=1)
    for text in paragraphs:
        document.add_paragraph(text)
    if picture is not None:
        document.add_picture(io.BytesIO(picture))
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def scanned_pdf(lines: list[str], *, turn: int = 0, with_text_page: bool = False) -> bytes:
    """Text rendered to an image and wrapped in a PDF (what a scanner makes), optionally turned."""
    source = pymupdf.open()
    page = source.new_page()
    for i, line in enumerate(lines):
        page.insert_text((72, 100 + 30 * i), line, fontsize=14)
    png = page.get_pixmap(dpi=200).tobytes("png")
    out = pymupdf.open()
    if with_text_page:
        out.new_page().insert_text((72, 100), "This first page has ordinary text.", fontsize=12)
    width, height = (page.rect.height, page.rect.width) if turn in (90, 270) else (page.rect.width, page.rect.height)
    scan = out.new_page(width=width, height=height)
    scan.insert_image(scan.rect, stream=png, rotate=turn)
    return out.tobytes()


def blank_png() -> bytes:
    """A white picture (a new Pixmap's samples are whatever memory held, which OCR may read as text)."""
    picture = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 400, 300), 0)
    picture.clear_with(255)
    return picture.tobytes("png")


def test_office_files_are_told_apart_by_their_parts_not_their_name():
    content_types = b'<?xml version="1.0"?><Types/>'
    assert sniff_type(word_document(["Hello."]), "upload.bin") == "docx"
    assert sniff_type(zip_of({"[Content_Types].xml": content_types, "ppt/presentation.xml": b"<p/>"}), "x") == "pptx"
    assert sniff_type(zip_of({"[Content_Types].xml": content_types, "xl/workbook.xml": b"<w/>"}), "x") == "xlsx"
    assert sniff_type(zip_of({"mimetype": b"application/epub+zip", "a.xhtml": b"<html/>"}), "x") == "epub"
    assert sniff_type(zip_of({"FixedDocumentSequence.fdseq": b"<f/>"}), "x.docx") == "xps"
    assert mime_of("docx") == DOCX_MIME


def test_a_zip_that_is_no_office_file_and_a_truncated_one_get_their_reasons():
    with pytest.raises(ParseError, match="ZIP archive that is not a Word, PowerPoint, Excel, EPUB or XPS"):
        sniff_type(zip_of({"notes.txt": b"just a zip"}), "report.docx")
    with pytest.raises(ParseError, match="corrupt or truncated ZIP"):
        sniff_type(word_document(["Hello."])[:300], "report.docx")


def test_a_word_document_becomes_pdf_pages_with_its_text_and_headings():
    body = [f"Paragraph {i}: records of job applicants are kept for six months after the decision." for i in range(60)]
    opened = open_pages(word_document(body), "policy.docx", max_pages=100)
    assert opened.mime == DOCX_MIME
    assert opened.rendition is not None and opened.rendition.startswith(b"%PDF-")
    parsed = finished_pages(opened)
    assert parsed.mime == DOCX_MIME and parsed.page_count >= 2
    with pymupdf.open(stream=opened.rendition, filetype="pdf") as pdf:
        assert pdf.page_count == parsed.page_count  # the viewer shows exactly the pages cited
        last = parsed.pages[-1]
        assert last.text.split()[0] in pdf[last.number - 1].get_text()
    assert "Data retention" in [title for _, title in parsed.pages[0].headings]
    assert "Paragraph 59" in parsed.pages[-1].text


def test_a_text_pdf_keeps_its_bytes_and_pays_nothing_for_ocr():
    data = (EXAMPLES / "data-retention-policy.pdf").read_bytes()
    opened = open_pages(data, "policy.pdf", max_pages=100)
    assert opened.rendition is None and opened.textless == [] and opened.pdf is data
    assert read_textless_pages(opened, "eng", 300, 100) is opened


@needs_tesseract
def test_a_scanned_page_is_read_by_ocr_and_kept_as_a_searchable_rendition():
    opened = open_pages(scanned_pdf(SCANNED, with_text_page=True), "scan.pdf", max_pages=10)
    assert opened.textless == [2]
    read = read_textless_pages(opened, "eng", 300, 100)
    parsed = finished_pages(read)
    assert read.textless == [] and read.ocr_read == (2,) and read.warning is None
    assert "ordinary text" in parsed.pages[0].text
    text = " ".join(parsed.pages[1].text.split())
    assert "job applicants are kept for six months" in text and "72 hours" in text
    with pymupdf.open(stream=read.rendition, filetype="pdf") as pdf:  # the viewer's text layer
        assert pdf.page_count == 2 and "six months" in pdf[1].get_text()


@needs_tesseract
@pytest.mark.parametrize("turn", [90, 180])
def test_a_turned_scan_is_read_upright(turn):
    opened = open_pages(scanned_pdf(SCANNED * 3, turn=turn), "turned.pdf", max_pages=10)
    read = read_textless_pages(opened, "eng", 300, 100)
    assert "job applicants are kept for six months" in " ".join(finished_pages(read).pages[0].text.split())


def test_without_tesseract_textless_pages_are_named_in_a_warning(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")  # no tesseract binary to find
    opened = read_textless_pages(
        open_pages(scanned_pdf(SCANNED, with_text_page=True), "s.pdf", max_pages=9), "eng", 300, 100
    )
    assert opened.textless == [2]
    assert opened.warning == "page 2 has no text: OCR is not available (install tesseract-ocr)"
    assert finished_pages(opened).page_count == 2  # the text page still answers
    only_scan = open_pages(scanned_pdf(SCANNED), "s.pdf", max_pages=9)
    with pytest.raises(ParseError, match="pages are images and OCR is not available"):
        finished_pages(read_textless_pages(only_scan, "eng", 300, 100))


@needs_tesseract
def test_a_word_document_of_only_a_blank_picture_fails_with_the_reason():
    opened = open_pages(word_document([], heading="", picture=blank_png()), "pictures.docx", max_pages=10)
    read = read_textless_pages(opened, "eng", 150, 100)
    with pytest.raises(ParseError, match="OCR found no text"):
        finished_pages(read)


def scans(count: int, *, with_text_page: bool) -> bytes:
    """A text page (optionally) followed by `count` scanned pages."""
    out = pymupdf.open(stream=scanned_pdf(SCANNED, with_text_page=with_text_page), filetype="pdf")
    for _ in range(count - 1):
        with pymupdf.open(stream=scanned_pdf(SCANNED), filetype="pdf") as more:
            out.insert_pdf(more)
    return out.tobytes()


@needs_tesseract
def test_ocr_reads_at_most_the_cap_and_names_the_pages_it_did_not_read():
    opened = open_pages(scans(3, with_text_page=True), "big-scan.pdf", max_pages=10)
    assert opened.textless == [2, 3, 4]
    read = read_textless_pages(opened, "eng", 150, 1)
    assert read.ocr_read == (2,) and read.textless == [3, 4]
    assert read.warning == "pages 3-4 were not read: OCR reads at most 1 page of a document (PP_OCR_MAX_PAGES)"
    assert "six months" in " ".join(finished_pages(read).pages[1].text.split())
    nothing = read_textless_pages(open_pages(scans(2, with_text_page=False), "s.pdf", max_pages=10), "eng", 150, 0)
    with pytest.raises(ParseError, match=r"no extractable text: the pages are images; pages 1-2 were not read"):
        finished_pages(nothing)


def test_page_lists_collapse_runs():
    assert page_list([3]) == "page 3"
    assert page_list([1, 2, 3, 4, 7, 9, 10]) == "pages 1-4, 7, 9-10"


def test_a_ten_thousand_row_sheet_is_laid_out_as_pages():
    xlsx = spreadsheet([(f"Item {r}", r * 3) for r in range(1, 10_001)])
    assert sniff_type(xlsx, "table.xlsx") == "xlsx"
    parsed = finished_pages(open_pages(xlsx, "table.xlsx", max_pages=2000))
    text = "\n".join(p.text for p in parsed.pages)
    assert parsed.page_count > 10 and text.startswith("Sheet1\n\nItem 1 3") and text.endswith("Item 10000 30000")


def test_encrypted_empty_and_mislabelled_files_fail_with_reasons():
    encrypted = pymupdf.open()
    encrypted.new_page().insert_text((72, 72), "secret")
    locked = encrypted.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw", owner_pw="pw")
    with pytest.raises(ParseError, match="encrypted"):
        open_pages(locked, "locked.pdf", max_pages=10)
    with pytest.raises(ParseError, match="empty file"):
        open_pages(b"", "empty.docx", max_pages=10)
    with pytest.raises(ParseError, match="named .pdf but its content is docx"):
        open_pages(word_document(["x"]), "fake.pdf", max_pages=10)


SPREADSHEET_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
PACKAGE_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
DOC_RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
SHEET_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml"


def spreadsheet(rows: list[tuple[str, int]]) -> bytes:
    """A minimal real .xlsx (ECMA-376 parts written by hand): one sheet, a text and a number per row."""
    strings = "".join(f"<si><t>{label}</t></si>" for label, _ in rows)
    cells = "".join(
        f'<row r="{r}"><c r="A{r}" t="s"><v>{r - 1}</v></c><c r="B{r}"><v>{value}</v></c></row>'
        for r, (_, value) in enumerate(rows, start=1)
    )

    def rel(rid: str, kind: str, target: str) -> str:
        return f'<Relationship Id="{rid}" Type="{DOC_RELS}/{kind}" Target="{target}"/>'

    parts = {
        "[Content_Types].xml": (
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            f'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/xl/workbook.xml" ContentType="{SHEET_TYPE}.sheet.main+xml"/>'
            f'<Override PartName="/xl/worksheets/sheet1.xml" ContentType="{SHEET_TYPE}.worksheet+xml"/>'
            f'<Override PartName="/xl/sharedStrings.xml" ContentType="{SHEET_TYPE}.sharedStrings+xml"/>'
            "</Types>"
        ),
        "_rels/.rels": f'<Relationships xmlns="{PACKAGE_RELS}">{rel("rId1", "officeDocument", "xl/workbook.xml")}'
        "</Relationships>",
        "xl/workbook.xml": f'<workbook xmlns="{SPREADSHEET_NS}" xmlns:r="{DOC_RELS}"><sheets>'
        '<sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": f'<Relationships xmlns="{PACKAGE_RELS}">'
        f"{rel('rId1', 'worksheet', 'worksheets/sheet1.xml')}{rel('rId2', 'sharedStrings', 'sharedStrings.xml')}"
        "</Relationships>",
        "xl/sharedStrings.xml": f'<sst xmlns="{SPREADSHEET_NS}" count="{len(rows)}">{strings}</sst>',
        "xl/worksheets/sheet1.xml": f'<worksheet xmlns="{SPREADSHEET_NS}"><sheetData>{cells}</sheetData></worksheet>',
    }
    return zip_of({name: text.encode() for name, text in parts.items()})
