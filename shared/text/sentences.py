"""Sentences of a passage: the unit that answers quote, cite and compare.

Heading lines are cut off rather than glued to the next sentence, and fragments too short to
stand on their own are dropped, so that every sentence reads as a statement of the document.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[\"'(\[]?[A-Z0-9])|\n{2,}")
MIN_SENTENCE_CHARS = 25
HEADING_ONLY = re.compile(r"^[\d.\s]*[A-Z][^.!?]{0,60}$")
HEADING_LINE = re.compile(r"^[^\n]{1,80}[^.!?:;,\s]\n(?=[A-Z])", re.M)


class HasText(Protocol):
    @property
    def text(self) -> str: ...


@dataclass(frozen=True)
class Sentence:
    """A sentence and the index of the passage it came from (its citation)."""

    chunk_index: int
    text: str


def split_sentences(text: str) -> list[str]:
    """Sentences of a chunk; short heading lines are cut off rather than glued to the next sentence."""
    marked = HEADING_LINE.sub(lambda m: m.group(0)[:-1] + "\n\n", text)
    flat = re.sub(r"(?<!\n)[ \t]*\n[ \t]*(?!\n)", " ", marked)
    parts = (p.strip() for p in SENTENCE_END.split(flat))
    return [re.sub(r"\s+", " ", p) for p in parts if len(p) >= MIN_SENTENCE_CHARS and not HEADING_ONLY.match(p)]


def candidate_sentences(chunks: Sequence[HasText]) -> list[Sentence]:
    """Distinct sentences of the chunks, tagged with their chunk index."""
    seen: set[str] = set()
    out: list[Sentence] = []
    for index, chunk in enumerate(chunks):
        for text in split_sentences(chunk.text):
            key = text.lower()
            if key not in seen:
                seen.add(key)
                out.append(Sentence(index, text))
    return out
