"""The page of a sentence inside a chunk that may run over a page break (docs/architecture.md §6).

A chunk stores its first page and the offsets in its text where later pages begin. Sentences are
split with their whitespace collapsed (shared/text/sentences.py), so a sentence is found again in
the chunk by its words, whatever whitespace lies between them.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence


def locate(text: str, sentence: str) -> int | None:
    """Offset of the sentence in the text, whitespace-insensitive; None when it is not there."""
    words = sentence.split()
    if not words:
        return None
    exact = text.find(sentence)
    if exact >= 0:
        return exact
    match = re.search(r"\s+".join(re.escape(w) for w in words), text)
    return match.start() if match else None


def page_of_sentence(text: str, first_page: int, page_breaks: Sequence[int], sentence: str) -> int:
    """The page on which the sentence starts; the chunk's first page when it cannot be found."""
    offset = locate(text, sentence)
    if offset is None or not page_breaks:
        return first_page
    return first_page + bisect.bisect_right(list(page_breaks), offset)


def page_pieces(text: str, first_page: int, page_breaks: Sequence[int]) -> list[tuple[int, str]]:
    """The chunk's text cut at its page breaks, each piece with its page."""
    cuts = [0, *page_breaks, len(text)]
    return [(first_page + i, text[cuts[i] : cuts[i + 1]]) for i in range(len(cuts) - 1)]
