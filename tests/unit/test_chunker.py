"""The chunker's contract, checked as properties over generated documents."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.ingest.chunker import PAGE_JOINER, chunk_pages, join_pages, split_spans
from services.ingest.parse import Page

words = st.text(alphabet="abcdefghij", min_size=1, max_size=12)
sentences = st.lists(words, min_size=1, max_size=25).map(lambda ws: " ".join(ws).capitalize() + ".")
paragraphs = st.lists(sentences, min_size=1, max_size=8).map(" ".join)
page_texts = st.lists(paragraphs, min_size=1, max_size=6).map("\n\n".join)
pages_strategy = st.lists(page_texts, min_size=1, max_size=5).map(
    lambda texts: [Page(number=i + 1, text=t) for i, t in enumerate(texts)]
)


@settings(deadline=None)
@given(pages=pages_strategy, size=st.integers(80, 1200), overlap_ratio=st.floats(0, 0.4))
def test_chunks_cover_the_text_in_order_within_the_size_bound(pages, size, overlap_ratio):
    overlap = int(size * overlap_ratio)
    text, starts, _ = join_pages(pages)
    chunks = chunk_pages(pages, size, overlap)
    assert chunks, "non-empty text yields chunks"
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert len(chunk.text) <= size
        assert text[chunk.char_start : chunk.char_end] == chunk.text
    # Every non-whitespace character is inside some chunk, and chunks advance monotonically.
    covered = set()
    for chunk in chunks:
        covered.update(range(chunk.char_start, chunk.char_end))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
    assert all(
        a.char_start < b.char_start and a.char_end < b.char_end for a, b in zip(chunks, chunks[1:], strict=False)
    )


@settings(deadline=None)
@given(pages=pages_strategy, size=st.integers(80, 1200), overlap_ratio=st.floats(0, 0.4))
def test_overlap_never_exceeds_the_setting(pages, size, overlap_ratio):
    overlap = int(size * overlap_ratio)
    chunks = chunk_pages(pages, size, overlap)
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert max(0, a.char_end - b.char_start) <= overlap


@settings(deadline=None)
@given(pages=pages_strategy, size=st.integers(80, 1200))
def test_page_is_the_page_where_the_chunk_starts(pages, size):
    _, starts, _ = join_pages(pages)
    for chunk in chunk_pages(pages, size, 0):
        page_index = max(i for i, s in enumerate(starts) if s <= chunk.char_start)
        assert chunk.page == pages[page_index].number


def test_boundaries_prefer_paragraphs_then_sentences_and_never_split_words():
    para_a = "Alpha sentence one. Alpha sentence two is here."
    para_b = "Beta sentence one. Beta sentence two."
    chunks = chunk_pages([Page(1, f"{para_a}\n\n{para_b}")], size=60, overlap=0)
    assert [c.text for c in chunks] == [para_a, para_b]
    long_sentence = " ".join(["word"] * 50)
    for chunk in chunk_pages([Page(1, long_sentence)], size=33, overlap=0):
        assert set(chunk.text.split()) == {"word"}


def test_overlap_repeats_the_tail_of_the_previous_chunk():
    text = " ".join(f"s{i:02d} is a short sentence." for i in range(40))
    chunks = chunk_pages([Page(1, text)], size=200, overlap=60)
    assert len(chunks) > 2
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert b.char_start < a.char_end  # shared text
        assert a.text.endswith(b.text[: a.char_end - b.char_start].rstrip())


def test_sections_follow_headings_and_pages_follow_breaks():
    pages = [
        Page(1, "Intro\nSome text about scope.", headings=[(0, "Intro")]),
        Page(2, "Retention\nRecords are kept six years.", headings=[(0, "Retention")]),
    ]
    chunks = chunk_pages(pages, size=40, overlap=0)
    assert [(c.page, c.section) for c in chunks] == [(1, "Intro"), (2, "Retention")]
    assert PAGE_JOINER not in "".join(c.text for c in chunks)


def test_hard_split_when_no_separator_fits():
    spans = split_spans("x" * 25, 0, 25, 10)
    assert spans == [(0, 10), (10, 20), (20, 25)]
