"""Recursive character splitting with character offsets, page and section attribution.

A chunk records its first page and where each later page begins inside its text (`page_breaks`),
so a sentence quoted from the chunk is cited to its own page (shared/text/pages.py), not to the
page the chunk starts on.

Pieces are cut at the coarsest boundary that makes them fit (paragraph → line → sentence →
clause → word → character) and then packed greedily into chunks of at most `size` characters;
a new chunk starts far enough back to share up to `overlap` characters with the previous one.
A FAQ's questions start new chunks (services/ingest/faq.py), so each topic is one vector.
Sizes count what the pages print: the notes ingest adds to a table row (its unit, "(in
millions)", and a date's fiscal period, "(Q1 fiscal 2025)") do not count, so noting them moves no
chunk's boundaries and so no search result.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable
from dataclasses import dataclass

from services.ingest.faq import sections
from services.ingest.parse import Page
from shared.text.tables import NOTES

SEPARATORS: tuple[str, ...] = ("\n\n", "\n", ". ", "? ", "! ", "; ", ", ", " ")
PAGE_JOINER = "\n\n"

Length = Callable[[int, int], int]
"""The size of text[a:b] as chunks count it."""


def _span_length(a: int, b: int) -> int:
    return b - a


def printed_length(text: str) -> Length:
    """The size of a span of `text` without the notes ingest added to its rows."""
    notes = sorted(m.span() for pattern in NOTES for m in pattern.finditer(text))
    if not notes:
        return _span_length
    starts = [start for start, _ in notes]
    noted = [0, *itertools.accumulate(end - start for start, end in notes)]

    def length(a: int, b: int) -> int:
        return b - a - (noted[bisect.bisect_left(starts, b)] - noted[bisect.bisect_left(starts, a)])

    return length


@dataclass(frozen=True)
class Chunk:
    ordinal: int
    page: int
    char_start: int
    char_end: int
    section: str | None
    text: str
    page_breaks: tuple[int, ...] = ()


def _split_at(text: str, start: int, end: int, sep: str) -> list[tuple[int, int]]:
    """Spans of text[start:end] cut after each `sep` (the separator stays with the left part)."""
    spans: list[tuple[int, int]] = []
    cursor = start
    while True:
        found = text.find(sep, cursor, end)
        if found == -1:
            break
        cut = found + len(sep)
        spans.append((cursor, cut))
        cursor = cut
    if cursor < end:
        spans.append((cursor, end))
    return spans


def split_spans(
    text: str,
    start: int,
    end: int,
    size: int,
    seps: tuple[str, ...] = SEPARATORS,
    length: Length = _span_length,
) -> list[tuple[int, int]]:
    if length(start, end) <= size:
        return [(start, end)]
    if not seps:
        return [(i, min(i + size, end)) for i in range(start, end, size)]
    pieces = _split_at(text, start, end, seps[0])
    if len(pieces) == 1:
        return split_spans(text, start, end, size, seps[1:], length)
    spans: list[tuple[int, int]] = []
    for s, e in pieces:
        spans.extend([(s, e)] if length(s, e) <= size else split_spans(text, s, e, size, seps[1:], length))
    return spans


def pack_spans(
    spans: list[tuple[int, int]], size: int, overlap: int, length: Length = _span_length
) -> list[tuple[int, int]]:
    windows: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        start, j = spans[i][0], i
        while j + 1 < len(spans) and length(start, spans[j + 1][1]) <= size:
            j += 1
        end = spans[j][1]
        windows.append((start, end))
        if j + 1 >= len(spans):
            break
        k = j + 1
        while k - 1 > i and length(spans[k - 1][0], end) <= overlap:
            k -= 1
        # The overlap must leave room for the next span, or the window would not advance.
        while k <= j and length(spans[k][0], spans[j + 1][1]) > size:
            k += 1
        i = k
    return windows


def join_pages(pages: list[Page]) -> tuple[str, list[int], list[tuple[int, str]]]:
    """The document text, each page's start offset, and document-level heading offsets."""
    parts: list[str] = []
    starts: list[int] = []
    headings: list[tuple[int, str]] = []
    offset = 0
    for page in pages:
        starts.append(offset)
        headings.extend((offset + local, title) for local, title in page.headings)
        parts.append(page.text)
        offset += len(page.text) + len(PAGE_JOINER)
    return PAGE_JOINER.join(parts), starts, headings


def chunk_pages(pages: list[Page], size: int = 1000, overlap: int = 150) -> list[Chunk]:
    if size <= 0 or not 0 <= overlap < size:
        raise ValueError("chunk size must be positive and overlap in [0, size)")
    text, page_starts, headings = join_pages(pages)
    heading_offsets = [h[0] for h in headings]
    chunks: list[Chunk] = []
    length = printed_length(text)
    windows = [
        window
        for start, end in sections(text, set(heading_offsets))
        for window in pack_spans(split_spans(text, start, end, size, length=length), size, overlap, length)
    ]
    for start, end in windows:
        raw = text[start:end]
        stripped = raw.strip()
        if not stripped:
            continue
        start += len(raw) - len(raw.lstrip())
        end = start + len(stripped)
        if chunks and end <= chunks[-1].char_end:
            # Only whitespace beyond the previous chunk: the overlap alone would repeat it.
            continue
        page_index = bisect.bisect_right(page_starts, start) - 1
        heading_index = bisect.bisect_right(heading_offsets, start) - 1
        later = page_starts[page_index + 1 : bisect.bisect_left(page_starts, end)]
        chunks.append(
            Chunk(
                ordinal=len(chunks),
                page=pages[page_index].number,
                char_start=start,
                char_end=end,
                section=headings[heading_index][1] if heading_index >= 0 else None,
                text=stripped,
                page_breaks=tuple(p - start for p in later),
            )
        )
    return chunks
