"""Extract selection: the sentences of some passages that best serve a query or their gist.

Sentences are ranked by embedding similarity (to the query, or to the passages' centroid) and
picked with maximal marginal relevance so that what is quoted does not repeat itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from shared.embeddings.provider import embed_async
from shared.text.sentences import HasText, Sentence, candidate_sentences

RELATIVE_CUTOFF = 0.7


@dataclass(frozen=True)
class Extract:
    """A picked sentence and its similarity to what it was picked for."""

    sentence: Sentence
    similarity: float


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
    """Up to `k` diverse sentences at least `floor` similar to the query, in MMR order."""
    if not sentences:
        return []
    order = mmr(query_vector, sentence_vectors, k)
    similarities = sentence_vectors @ query_vector
    # Sentences far weaker than the best one dilute an answer more than they add to it.
    cutoff = max(floor, float(similarities.max()) * RELATIVE_CUTOFF)
    return [Extract(sentences[i], float(similarities[i])) for i in order if similarities[i] >= cutoff]


async def best_extracts(query: str, passages: Sequence[HasText], *, k: int, floor: float) -> list[Extract]:
    """The `k` most relevant, mutually diverse sentences of the passages."""
    sentences = candidate_sentences(passages)
    if not sentences:
        return []
    vectors = await embed_async([query] + [s.text for s in sentences])
    return select_extracts(vectors[0], sentences, vectors[1:], k=k, floor=floor)


async def central_extracts(passages: Sequence[HasText], *, k: int) -> list[Extract]:
    """Sentences closest to the passages' centroid (what the text is mostly about), in reading order."""
    sentences = candidate_sentences(passages)
    if not sentences:
        return []
    vectors = await embed_async([s.text for s in sentences])
    centroid = vectors.mean(axis=0)
    centroid = centroid / (np.linalg.norm(centroid) or 1.0)
    picks = select_extracts(centroid, sentences, vectors, k=k, floor=-1.0)
    return sorted(picks, key=lambda e: sentences.index(e.sentence))
