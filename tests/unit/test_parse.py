"""Parsing real PDFs built in memory, and the clear reasons given for files that cannot be read."""

from __future__ import annotations

import pymupdf
import pytest

from services.ingest.parse import parse_document
from shared.documents.filetype import ParseError, sniff_type


def make_pdf(pages: list[list[tuple[str, float]]], *, encrypt: bool = False) -> bytes:
    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page()
        y = 72
        for text, size in lines:
            page.insert_text((72, y), text, fontsize=size)
            y += size * 1.8
    options = {"encryption": pymupdf.PDF_ENCRYPT_AES_256, "user_pw": "pw", "owner_pw": "pw"} if encrypt else {}
    return doc.tobytes(**options)


def test_pages_text_and_headings():
    data = make_pdf(
        [
            [("Scope", 18), ("This policy applies to all staff.", 11)],
            [("Retention", 18), ("Records are kept for six years.", 11)],
        ]
    )
    parsed = parse_document(data, "policy.pdf", max_pages=10)
    assert parsed.mime == "application/pdf" and parsed.page_count == 2
    assert "applies to all staff" in parsed.pages[0].text and parsed.pages[1].number == 2
    assert [h for _, h in parsed.pages[1].headings] == ["Retention"]


def test_text_markdown_and_html_are_accepted():
    assert sniff_type(b"# Title\n\nPlain words here.", "notes.md") == "md"
    assert parse_document(b"Plain words here.", "notes.txt", max_pages=10).mime == "text/plain"
    html = b"<!DOCTYPE html><html><body><h1>Policy</h1><p>Be kind.</p></body></html>"
    parsed = parse_document(html, "page.bin", max_pages=10)
    assert parsed.mime == "text/html" and "Be kind" in parsed.pages[0].text


@pytest.mark.parametrize(
    ("data", "name", "reason"),
    [
        (b"", "x.pdf", "empty file"),
        (b"hello there, I am text", "x.pdf", "not a PDF"),
        (bytes(range(256)) * 8, "blob.bin", "unsupported file type"),
        (b"%PDF-1.4\n%%EOF", "x.pdf", "corrupt"),
    ],
)
def test_unreadable_files_have_a_reason(data, name, reason):
    with pytest.raises(ParseError, match=reason):
        parse_document(data, name, max_pages=10)


def test_scanned_or_blank_pdf_has_no_extractable_text():
    with pytest.raises(ParseError, match="no extractable text"):
        parse_document(make_pdf([[]]), "scan.pdf", max_pages=10)


def test_encrypted_pdf_is_refused():
    with pytest.raises(ParseError, match="encrypted"):
        parse_document(make_pdf([[("Secret", 11)]], encrypt=True), "locked.pdf", max_pages=10)


def test_page_limit():
    with pytest.raises(ParseError, match="too many pages: 3"):
        parse_document(make_pdf([[("a", 11)]] * 3), "long.pdf", max_pages=2)


def test_sniffing_ignores_misleading_names():
    assert sniff_type(make_pdf([[("x", 11)]]), "report.txt") == "pdf"
    assert sniff_type(b"just text", "x.html") == "html"


def test_a_heading_glued_to_its_paragraph_is_cut_off_rather_than_echoed():
    # MuPDF puts a heading set just above its paragraph into the paragraph's block, and joins the lines:
    # "Exceptions Exceptions require…" was what answers quoted (issue #27).
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Exceptions", fontsize=11, fontname="hebo")
    page.insert_text((72, 85), "Exceptions require written approval from the Data Protection Officer.", fontsize=11)
    page.insert_text((72, 110), "Access logs", fontsize=11)
    page.insert_text((72, 123), "Access logs for customer-facing systems are kept for twelve months.", fontsize=11)
    (parsed,) = parse_document(doc.tobytes(), "standard.pdf", max_pages=5).pages
    assert "Exceptions Exceptions" not in parsed.text and "Access logs Access logs" not in parsed.text
    assert parsed.text.startswith("Exceptions\n\nExceptions require written approval")
    assert [h for _, h in parsed.headings] == ["Exceptions", "Access logs"]
    assert all(parsed.text[o : o + len(h)] == h for o, h in parsed.headings)


def test_a_bold_label_its_sentence_goes_on_from_stays_in_the_sentence():
    # "**Constant currency**: financial results …" (a filing's glossary, a help centre's "**Problem**:"):
    # cut off as a heading, the rest was quoted as ": financial results …", without what it defines.
    html = (
        "<p><b>Constant currency</b>: financial results assuming constant foreign exchange rates.</p>"
        "<p><b>Exceptions</b> Exceptions require written approval from the CISO.</p>"
    )
    (parsed,) = parse_document(html.encode(), "glossary.html", max_pages=5).pages
    assert parsed.text.startswith("Constant currency: financial results assuming constant foreign exchange rates.")
    assert [h for _, h in parsed.headings] == ["Exceptions"]


def test_a_bold_run_its_sentence_goes_on_from_in_lower_case_stays_in_the_sentence():
    # A filing's bold subject ("Jen-Hsun Huang co-founded NVIDIA…") or a bold first letter ("Note 1 —")
    # was cut off as a heading above a sentence without its subject: "co-founded NVIDIA…", "ote 1 —".
    # A heading echoed by its sentence's subject is still cut off once, the subject kept.
    html = (
        "<p><b>Jen-Hsun Huang</b> co-founded NVIDIA in 1993 and has served as its President since.</p>"
        "<p><b>N</b>ote 1 — Description of business and accounting policies.</p>"
        "<p><b>Services Services</b> revenues of $5.2 billion were up 15%.</p>"
    )
    (parsed,) = parse_document(html.encode(), "filing.html", max_pages=5).pages
    assert "Jen-Hsun Huang co-founded NVIDIA in 1993" in parsed.text
    assert "Note 1 — Description of business" in parsed.text
    assert "Services revenues of $5.2 billion were up 15%." in parsed.text
    assert [h for _, h in parsed.headings] == ["Services"]


def test_a_compound_a_line_end_broke_reads_as_the_page_prints_it():
    # Two lines of one paragraph, the first ending in a compound's hyphen, and a suspended hyphen that
    # the page prints with its space.
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "We hold asset-\nbacked securities and short- and long-term debt.", fontsize=11)
    text = parse_document(doc.tobytes(), "note.pdf", max_pages=10).pages[0].text
    assert "asset-backed securities and short- and long-term debt." in text
