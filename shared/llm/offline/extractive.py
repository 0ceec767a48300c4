"""Extractive answering: the query's best sentences from retrieved chunks, each cited.

Sentences are ranked by embedding similarity to the query and picked with maximal marginal
relevance so the answer does not repeat itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[\"'(\[]?[A-Z0-9])|\n{2,}")
MIN_SENTENCE_CHARS = 25
HEADING_ONLY = re.compile(r"^[\d.\s]*[A-Z][^.!?]{0,60}$")
QUOTE_LIMIT = 300
RELATIVE_CUTOFF = 0.7


class HasText(Protocol):
    @property
    def text(self) -> str: ...


@dataclass(frozen=True)
class Sentence:
    chunk_index: int
    text: str


@dataclass(frozen=True)
class Extract:
    sentence: Sentence
    similarity: float


HEADING_LINE = re.compile(r"^[^\n]{1,80}[^.!?:;,\s]\n(?=[A-Z])", re.M)


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


def mmr(query: np.ndarray, vectors: np.ndarray, k: int, lam: float = 0.7) -> list[int]:
    """Indices of `k` rows balancing relevance to `query` against redundancy among picks."""
    relevance = vectors @ query
    picked: list[int] = []
    candidates = list(range(len(vectors)))
    while candidates and len(picked) < k:
        redundancy = (vectors[candidates] @ vectors[picked].T).max(axis=1) if picked else np.zeros(len(candidates))
        scores = lam * relevance[candidates] - (1 - lam) * redundancy
        best = candidates[int(np.argmax(scores))]
        picked.append(best)
        candidates.remove(best)
    return picked


def select_extracts(
    query_vector: np.ndarray, sentences: list[Sentence], sentence_vectors: np.ndarray, *, k: int, floor: float
) -> list[Extract]:
    if not sentences:
        return []
    order = mmr(query_vector, sentence_vectors, k)
    similarities = sentence_vectors @ query_vector
    # Sentences far weaker than the best one dilute an answer more than they add to it.
    cutoff = max(floor, float(similarities.max()) * RELATIVE_CUTOFF)
    return [Extract(sentences[i], float(similarities[i])) for i in order if similarities[i] >= cutoff]


QUOTE_GAP = " … "


def quote_of(texts: list[str]) -> str:
    """Sentences of one passage as one quote; a gap between them is marked, so that every piece
    reads verbatim in the document (sentences that were not adjacent are not glued together)."""
    quote = QUOTE_GAP.join(texts)
    return quote if len(quote) <= QUOTE_LIMIT else quote[: QUOTE_LIMIT - 1].rsplit(" ", 1)[0] + "…"
