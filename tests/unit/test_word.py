"""A Word document's rendition keeps what MuPDF's own .docx reader drops: tables (read as rows with
their column headers), list numbers, footnotes after the body, pictures (services/ingest/word.py)."""

from __future__ import annotations

import io
import re
import zipfile

import docx
import pymupdf
import pytest

from services.ingest.pages import open_pages, read_textless_pages
from services.ingest.rendition import to_pdf
from services.ingest.word import word_html
from shared.documents.filetype import ParseError
from tests.pdf_tables import policy_docx
from tests.unit.test_document_pages import needs_tesseract

LEVELS = [
    ("Level", "Examples", "Handling requirements"),
    ("Public", "Press releases, the website", "No restrictions."),
    ("Confidential", "Customer contracts, payroll records", "Encrypt at rest and in transit."),
    ("Restricted", "Cardholder data, health records", "Encrypt with keys held in the HSM; review access monthly."),
]
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def classification_standard() -> bytes:
    """A standard as Word writes one: a heading, a paragraph, a numbered list and a ruled table."""
    return policy_docx(
        LEVELS,
        heading="Data classification standard",
        intro="Every information asset is classified by its owner.",
        steps=("Label the asset.", "Store it as its level requires."),
        outro="Exceptions require written approval from the CISO.",
    )


def package(document_xml: str, prolog: str = "", **parts: str) -> bytes:
    """A .docx of hand-written parts (python-docx writes no footnotes): `footnotes`, `numbering`."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        z.writestr("word/document.xml", f"{prolog}<w:document {W}><w:body>{document_xml}</w:body></w:document>")
        for name, xml in parts.items():
            z.writestr(f"word/{name}.xml", xml)
    return out.getvalue()


def paragraph(text: str, extra: str = "") -> str:
    return f"<w:p>{extra}<w:r><w:t xml:space='preserve'>{text}</w:t></w:r></w:p>"


def page_texts(data: bytes) -> list[str]:
    opened = open_pages(data, "standard.docx", max_pages=50)
    return [page.text for page in opened.parsed.pages]


def test_a_word_table_is_read_a_row_at_a_time_with_its_column_headers():
    text = "\n\n".join(page_texts(classification_standard()))
    assert (
        "Confidential — Examples: Customer contracts, payroll records · Handling requirements: "
        "Encrypt at rest and in transit." in text
    )
    assert "Restricted — Examples: Cardholder data, health records" in text
    assert "Data classification standard" in text and "Exceptions require written approval" in text


def test_mupdf_alone_gives_the_cells_one_under_the_other():
    """Why the rendition is not MuPDF's: its reader drops the table (kept as the reason for word.py)."""
    with pymupdf.open(stream=classification_standard(), filetype="docx") as doc:
        words = doc[0].get_text()
    assert "Confidential\nCustomer contracts, payroll records\nEncrypt at rest" in words


def test_headings_list_numbers_and_the_table_are_written_as_html():
    html, size = word_html(classification_standard())
    assert size == (612.0, 792.0)  # python-docx's template section is US Letter
    assert "<h1>Data classification standard</h1>" in html
    assert ">1. Label the asset.</p>" in html and ">2. Store it as its level requires.</p>" in html
    assert "<table><tr><td><p>Level</p></td>" in html


def test_merged_cells_are_spans_and_a_repeated_header_row_is_a_header():
    def cell(text: str, props: str = "") -> str:
        return f"<w:tc><w:tcPr>{props}</w:tcPr>{paragraph(text) if text else '<w:p/>'}</w:tc>"

    span, restart = '<w:gridSpan w:val="2"/>', '<w:vMerge w:val="restart"/>'
    grid = (
        "<w:tbl>"
        f"<w:tr><w:trPr><w:tblHeader/></w:trPr>{cell('Record')}{cell('Retention', span)}</w:tr>"
        f"<w:tr>{cell('Payroll', restart)}{cell('7 years')}{cell('archive')}</w:tr>"
        f"<w:tr>{cell('', '<w:vMerge/>')}{cell('1 year')}{cell('online')}</w:tr>"
        "</w:tbl>"
    )
    html, _ = word_html(package(grid))
    assert '<th colspan="2"><p>Retention</p></th>' in html
    assert '<td rowspan="2"><p>Payroll</p></td>' in html
    assert html.count("<tr>") == 3 and html.count("<td") == 5


def test_footnotes_follow_the_body_numbered_where_they_are_marked():
    body = (
        "<w:p><w:r><w:t>Records are kept as the Act requires.</w:t></w:r>"
        "<w:r><w:footnoteReference w:id='2'/></w:r><w:r><w:t xml:space='preserve'> Then deleted.</w:t></w:r></w:p>"
    )
    footnotes = (
        f"<w:footnotes {W}><w:footnote w:type='separator' w:id='0'><w:p><w:r><w:separator/></w:r></w:p></w:footnote>"
        "<w:footnote w:id='2'><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t>Records Act 2002, s. 4.</w:t></w:r></w:p>"
        "</w:footnote></w:footnotes>"
    )
    html, _ = word_html(package(body, footnotes=footnotes))
    assert "as the Act requires. <sup>1</sup> Then deleted." in html
    assert html.index("Then deleted.") < html.index("<sup>1</sup> Records Act 2002, s. 4.")


def test_list_labels_follow_the_numbering_part_levels_and_formats():
    numbering = (
        f"<w:numbering {W}><w:abstractNum w:abstractNumId='7'>"
        "<w:lvl w:ilvl='0'><w:start w:val='1'/><w:numFmt w:val='decimal'/><w:lvlText w:val='%1.'/></w:lvl>"
        "<w:lvl w:ilvl='1'><w:start w:val='1'/><w:numFmt w:val='lowerLetter'/><w:lvlText w:val='%1.%2)'/></w:lvl>"
        "<w:lvl w:ilvl='2'><w:numFmt w:val='bullet'/><w:lvlText w:val='\uf0b7'/></w:lvl>"
        "</w:abstractNum><w:num w:numId='3'><w:abstractNumId w:val='7'/></w:num></w:numbering>"
    )

    def item(level: int, text: str) -> str:
        return paragraph(text, f"<w:pPr><w:numPr><w:ilvl w:val='{level}'/><w:numId w:val='3'/></w:numPr></w:pPr>")

    body = item(0, "Scope") + item(1, "Staff") + item(1, "Contractors") + item(2, "Badges") + item(0, "Duties")
    html, _ = word_html(package(body, numbering=numbering))
    labels = re.findall(r">([^<>]+) (?:Scope|Staff|Contractors|Badges|Duties)<", html)
    assert labels == ["1.", "1.a)", "1.b)", "•", "2."]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"PK\x03\x04 not really a zip", "corrupt docx file"),
        (package("<w:p>"), "not well-formed XML"),
        (package("", prolog="<!DOCTYPE d [<!ENTITY a 'aa'>]>"), "declares a DTD"),
        (package(paragraph("x")).replace(b"PK\x03\x04", b"PK\x03\x05"), "cannot be read"),
    ],
)
def test_a_broken_package_is_refused_with_its_reason(data: bytes, reason: str):
    with pytest.raises(ParseError, match=reason):
        to_pdf(data, "docx", max_pages=10)


def test_text_is_escaped_not_markup():
    html, _ = word_html(package(paragraph("&lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;x")))
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;x" in html


@needs_tesseract
def test_a_picture_of_text_in_a_word_document_is_read_by_ocr():
    """MuPDF's reader laid out no pictures, so a scan pasted into Word had no text to read."""
    page = pymupdf.open().new_page(width=400, height=120)
    page.insert_text((20, 70), "Backups are encrypted", fontsize=28)
    picture = page.get_pixmap(dpi=150).tobytes("png")
    document = docx.Document()
    document.add_picture(io.BytesIO(picture), width=docx.shared.Inches(5))
    out = io.BytesIO()
    document.save(out)
    opened = read_textless_pages(open_pages(out.getvalue(), "scan.docx", max_pages=5), "eng", 200, 5)
    assert "Backups are encrypted" in opened.parsed.pages[0].text


def test_a_first_row_of_one_label_across_the_table_is_a_group_not_a_header():
    """A schedule continued from the page before opens with its group's row ("Quarterly"): naming no
    column, it is not every cell's header."""
    document = docx.Document()
    table = document.add_table(rows=3, cols=3)
    table.style = "Table Grid"
    table.cell(0, 0).merge(table.cell(0, 2)).text = "Quarterly"
    for r, row in enumerate(
        [
            ("AC-22", "Public content", "Review for non-public information."),
            ("CA-7", "Monitoring", "Report the security state to the AO."),
        ],
        start=1,
    ):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    out = io.BytesIO()
    document.save(out)
    rows = [line for line in page_texts(out.getvalue())[0].split("\n\n") if " — " in line]
    assert rows == [
        "Quarterly: AC-22 — Public content · Review for non-public information.",
        "Quarterly: CA-7 — Monitoring · Report the security state to the AO.",
    ]
