"""Issue #27: a citation's page is the page of the sentence it quotes, not of its chunk's start.

Real PDFs built in memory go through the real parser and chunker; the chunk that runs over the
page break is cited through the CitationBook the actions use.
"""

from __future__ import annotations

import uuid

import pymupdf

from services.actions.citations import CitationBook
from services.ingest.chunker import chunk_pages
from services.ingest.parse import parse_document
from shared.contracts import ChunkHit
from shared.text.pages import locate, page_of_sentence
from shared.text.quotes import QUOTE_LIMIT, quote_of

LATE = "Backups of customer records are encrypted with AES-256 and kept for seven years."


def two_page_pdf() -> bytes:
    doc = pymupdf.open()
    first = doc.new_page()
    first.insert_textbox(
        pymupdf.Rect(72, 72, 540, 760),
        "Records retention. The company keeps the records that the law requires it to keep. " * 3,
        fontsize=11,
    )
    second = doc.new_page()
    second.insert_textbox(pymupdf.Rect(72, 72, 540, 300), LATE + " Restores are tested every quarter.", fontsize=11)
    return doc.tobytes()


def hit_of(chunk, page_breaks) -> ChunkHit:
    return text_hit(chunk.text, page=chunk.page, page_breaks=list(page_breaks), title="Records Policy")


def text_hit(text: str, *, page: int, page_breaks: list[int], title: str = "Annual report") -> ChunkHit:
    """A chunk as the search returns it."""
    return ChunkHit(
        chunk_id=uuid.uuid4(),
        document_id=uuid.uuid4(),
        title=title,
        version="1",
        doc_type="company_policy",
        page=page,
        ordinal=0,
        text=text,
        page_breaks=page_breaks,
        similarity=0.6,
    )


def test_a_chunk_records_where_its_later_pages_begin():
    parsed = parse_document(two_page_pdf(), "records.pdf", max_pages=5)
    (chunk,) = chunk_pages(parsed.pages, size=1000, overlap=100)
    assert chunk.page == 1 and len(chunk.page_breaks) == 1
    assert chunk.text[chunk.page_breaks[0] :].startswith(parsed.pages[1].text[:20])


def test_a_quote_on_the_page_after_its_chunks_start_is_cited_to_that_page():
    parsed = parse_document(two_page_pdf(), "records.pdf", max_pages=5)
    (chunk,) = chunk_pages(parsed.pages, size=1000, overlap=100)
    book = CitationBook([hit_of(chunk, chunk.page_breaks)])
    answer = book.renumber(f"{LATE} [1]")
    (citation,) = book.citations()
    assert answer.endswith("[1]")
    assert citation["page"] == 2 and citation["navigation_target"]["page"] == 2
    assert LATE in citation["quote"]


def test_a_quote_before_the_break_keeps_the_first_page_and_old_chunks_keep_theirs():
    parsed = parse_document(two_page_pdf(), "records.pdf", max_pages=5)
    (chunk,) = chunk_pages(parsed.pages, size=1000, overlap=100)
    early = "The company keeps the records that the law requires it to keep."
    assert page_of_sentence(chunk.text, chunk.page, chunk.page_breaks, early) == 1
    # A chunk stored before page breaks were recorded cites its first page, as it always did.
    assert page_of_sentence(chunk.text, chunk.page, [], LATE) == 1


def test_a_passage_quoted_on_two_of_its_pages_is_a_citation_for_each_page():
    parsed = parse_document(two_page_pdf(), "records.pdf", max_pages=5)
    (chunk,) = chunk_pages(parsed.pages, size=1000, overlap=100)
    book = CitationBook([hit_of(chunk, chunk.page_breaks)])
    early = "The company keeps the records that the law requires it to keep."
    answer = book.renumber(f"{LATE} [1] {early} [1] Restores are tested every quarter. [1]")
    assert answer.endswith(f"{LATE} [1] {early} [2] Restores are tested every quarter. [1]")
    late, first = book.citations()
    assert (late["n"], late["page"], first["n"], first["page"]) == (1, 2, 2, 1)
    assert LATE in late["quote"] and "Restores" in late["quote"] and "law requires" not in late["quote"]
    assert first["quote"] == early and first["navigation_target"]["page"] == 1
    # One passage, two citations: the passage counts once among those used, the numbers twice.
    assert len(book.used) == 1 and book.count == 2


def test_a_sentence_is_found_whatever_whitespace_the_page_put_between_its_words():
    assert locate("Intro.\n\nAccess  logs are\nkept for a year.", "Access logs are kept for a year.") == 8
    assert locate("Nothing here.", "Access logs are kept.") is None


def test_rows_printed_inside_a_run_of_text_are_each_their_own_quote_on_their_own_page():
    """A statement page's rows carry no full stop, so MuPDF's text of an index page and the next
    page's statement reads as one long sentence that starts on the index page. Each row quoted is
    cited to the statement's page with the row's own words, not that sentence."""
    index = "Index to Consolidated Financial Statements Page\nConsolidated Statements of Operations 29\n"
    statement = "CONSOLIDATED STATEMENTS OF OPERATIONS\nServices\n96,169\n85,200\nTotal net sales\n391,035\n383,285\n"
    book = CitationBook([text_hit(index + statement, page=31, page_breaks=[len(index)])])
    book.renumber("Services 96,169 85,200 [1] Total net sales 391,035 383,285 [1]")
    (citation,) = book.citations()
    assert citation["page"] == 32
    assert "Services 96,169 85,200" in citation["quote"] and "Total net sales 391,035 383,285" in citation["quote"]
    assert "Index" not in citation["quote"]


def test_a_quote_stays_within_its_limit_after_a_sentence_that_nearly_fills_it():
    long = "The Company's management is responsible for internal control over financial reporting " * 3
    first = long.strip()[:297] + "."
    quote = quote_of([first, "Our responsibility is to express an opinion on internal control based on our audit."])
    # A citation's quote is at most 300 characters (shared/contracts): building the citation would fail.
    assert len(quote) <= QUOTE_LIMIT and quote.startswith(first)


def test_a_sentence_with_a_decimal_is_quoted_whole():
    text = (
        "The Company's other purchase obligations consist of noncancelable obligations. As of September 28, "
        "2024, the Company had other purchase obligations of $12.0 billion, with $4.1 billion payable within "
        "12 months."
    )
    book = CitationBook([text_hit(text, page=40, page_breaks=[])])
    book.renumber(
        "As of September 28, 2024, the Company had other purchase obligations of $12.0 billion, with $4.1 "
        "billion payable within 12 months. [1]"
    )
    (citation,) = book.citations()
    assert citation["quote"].startswith("As of September 28, 2024, the Company had other purchase obligations")


def test_a_row_whose_label_holds_a_full_stop_is_quoted_with_its_label():
    row = "Net loss attributable to Example Holdings, Inc. — 2026: (20,311) · 2025: (435,260)."
    text = f"Total net revenues — 2026: 330,995 · 2025: 379,767.\n\n{row}"
    book = CitationBook([text_hit(text, page=11, page_breaks=[])])
    book.renumber(f"Total net revenues — 2026: 330,995 · 2025: 379,767. [1] {row} [1]")
    (citation,) = book.citations()
    assert row in citation["quote"], citation["quote"]


def test_a_row_whose_column_header_ends_in_a_full_stop_is_quoted_whole_with_its_unit():
    header = "by higher average AUM on higher market levels."
    row = f"Morgan Stanley — {header}: 859 · {header}: (3)% (in millions)."
    book = CitationBook([text_hit(f"Assets under management rose.\n\n{row}", page=38, page_breaks=[])])
    book.renumber(f"{row} [1]")
    (citation,) = book.citations()
    assert citation["quote"] == row, citation["quote"]


def test_a_row_cited_after_an_abbreviations_full_stop_in_its_headers_is_quoted_whole():
    row = (
        "Total revenue — Three Months Ended Oct. 26, 2024 (Q1 fiscal 2025): 13,841 · "
        "Three Months Ended Oct. 28, 2023 (Q1 fiscal 2024): 14,668 (in millions)."
    )
    book = CitationBook([text_hit(f"Revenue fell.\n\n{row}", page=3, page_breaks=[])])
    book.renumber(f"{row} [1]")
    (citation,) = book.citations()
    assert citation["quote"] == row, citation["quote"]
