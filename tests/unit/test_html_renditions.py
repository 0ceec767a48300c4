"""A Markdown, HTML or EPUB upload's rendition: Markdown is laid out from the HTML its markup means,
so headings are headings without their "#", and a pipe table, like an HTML or EPUB upload's table
whose own stylesheet draws no borders, is ruled and read as rows with their column headers
(services/ingest/markdown.py, html_pages.py, epub.py)."""

from __future__ import annotations

import pymupdf
import pytest

from services.ingest.epub import ruled_epub
from services.ingest.markdown import front_matter, markdown_html
from services.ingest.pages import open_pages
from shared.documents.filetype import ParseError
from tests.epub import epub
from tests.unit.test_document_pages import zip_of

ARTICLE = """---
title: "Account security"
layout: page
---
Every account uses **multi-factor authentication** and a password of at least 14 characters.

## Session limits

**IdleTimeout** ends a session that has been idle for the time below.

| Account type | Idle timeout | Reviewed by |
|--------------|--------------|-------------|
| Staff        | 30 minutes   | IT Security |
| Contractor   | 15 minutes   | Vendor manager |

Set the value in `C:\\users\\admin\\policy.json`; versions read `<major>.<minor>`.

> [!NOTE]
> Service accounts never time out.
"""


def pages(data: bytes, name: str) -> list[str]:
    return [page.text for page in open_pages(data, name, max_pages=20).parsed.pages]


def test_a_markdown_article_reads_as_its_headings_prose_and_table_rows():
    opened = open_pages(ARTICLE.encode(), "security.md", max_pages=20)
    (page,) = opened.parsed.pages
    assert opened.mime == "text/markdown" and opened.rendition is not None
    assert [heading for _, heading in page.headings] == ["Account security", "Session limits"]
    assert "#" not in page.text and "**" not in page.text and "|" not in page.text
    assert "Staff — Idle timeout: 30 minutes · Reviewed by: IT Security." in page.text
    assert "Contractor — Idle timeout: 15 minutes · Reviewed by: Vendor manager." in page.text
    # A bold subject stays in its sentence; a Windows path and a placeholder print as written.
    assert "IdleTimeout ends a session that has been idle for the time below." in page.text
    assert "C:\\users\\admin\\policy.json" in page.text and "<major>.<minor>" in page.text
    assert "Note: Service accounts never time out." in page.text


def test_front_matter_gives_a_title_only_where_the_body_has_none():
    assert front_matter("---\ntitle: Guide\n---\nBody") == ("Guide", "Body")
    assert front_matter("+++\ntitle = 'Guide'\n+++\nBody") == ("Guide", "Body")
    assert front_matter("No front matter\n---\n") == (None, "No front matter\n---\n")
    written, _ = markdown_html(b"---\ntitle: Guide\n---\n# Own heading\n")
    assert "Guide" not in written and "<h1>Own heading</h1>" in written


def test_raw_html_in_markdown_is_laid_out_and_unknown_tags_print_as_text():
    written, _ = markdown_html(b"Line one<br>line two <sup>1</sup>\n\n<script>alert(1)</script>\n")
    assert "<br>" in written and "<sup>1</sup>" in written
    assert "<script>" not in written and "&lt;script&gt;" in written


SCHEDULE = (
    "<h1>Retention schedule</h1><table><tr><th>Record</th><th>Kept for</th></tr>"
    "<tr><td>Invoices</td><td>Seven years</td></tr><tr><td>CCTV footage</td><td>30 days</td></tr></table>"
)


def test_an_html_table_without_borders_is_ruled_and_read_as_rows():
    html = f"<!DOCTYPE html><html><head><style>td, th {{ border: none }}</style></head><body>{SCHEDULE}</body></html>"
    (text,) = pages(html.encode(), "schedule.html")
    assert "Invoices — Kept for: Seven years." in text and "CCTV footage — Kept for: 30 days." in text


def test_an_epub_table_is_ruled_and_read_as_rows():
    opened = open_pages(epub(SCHEDULE), "schedule.epub", max_pages=20)
    assert opened.mime == "application/epub+zip"
    (page,) = opened.parsed.pages
    assert "Invoices — Kept for: Seven years." in page.text and "CCTV footage — Kept for: 30 days." in page.text


def test_a_damaged_or_oversized_epub_is_refused_with_the_reason(monkeypatch):
    with pytest.raises(ParseError, match="corrupt epub file"):
        ruled_epub(b"PK\x03\x04 not really a zip")
    monkeypatch.setattr("services.ingest.epub.MAX_MEMBER_BYTES", 10)
    with pytest.raises(ParseError, match="corrupt epub file: .* is larger than"):
        ruled_epub(epub(SCHEDULE))
    with pytest.raises(ParseError, match="corrupt epub file"):
        ruled_epub(zip_of({"mimetype": b"application/epub+zip"})[:-30])


def test_a_markdown_rendition_is_laid_out_on_letter_pages():
    opened = open_pages(("Words.\n\n" * 400).encode(), "long.md", max_pages=50)
    assert opened.rendition is not None
    with pymupdf.open("pdf", opened.rendition) as doc:
        assert doc.page_count > 1 and (doc[0].rect.width, doc[0].rect.height) == (612, 792)
