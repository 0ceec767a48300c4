"""How well the retrieved evidence matches: mean similarity, the best sentence, and the confidence tier.

Chunk similarity alone under-rates a short multi-topic document: a one-page standard is one chunk
whose embedding averages its sections, so "Who approves exceptions?" is far from it even though
one of its sentences says exactly who does. The best sentence's similarity is the second opinion:
from `sentence_answers` on, the evidence is at least "medium" (issue #27), provided the sentence
shares a content word with the question ("Exceptions require written approval…" for "Who approves
exceptions?"); a sentence that is merely about a neighbouring subject ("transaction records are
kept for five years" for "How are invoices archived?") does not count. Sentence vectors are
stored at ingest, so asking costs a lookup, not an embedding.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shared.config import Settings
from shared.contracts import ChunkHit, Confidence
from shared.embeddings.provider import embed_async
from shared.text.search_query import content_terms
from shared.text.sentences import candidate_sentences

TIERS: tuple[Confidence, ...] = ("low", "medium", "high")


def above_floor(chunks: list[ChunkHit], settings: Settings) -> list[ChunkHit]:
    """The chunks at or above the adaptive-k floor, or all of them when none is. Full-text matches below
    the floor are candidates for sentences, not vector evidence: the tier is calibrated on what passes
    the floor (bench/retrieval_eval.py)."""
    floor = settings.similarity.min_similarity
    return [c for c in chunks if c.similarity >= floor] or chunks


def tier(mean_similarity: float, settings: Settings) -> Confidence:
    thresholds = settings.similarity
    if mean_similarity >= thresholds.confidence_high:
        return "high"
    if mean_similarity >= thresholds.confidence_medium:
        return "medium"
    return "low"


def mean_similarity(chunks: list[ChunkHit]) -> float:
    return float(np.mean([c.similarity for c in chunks])) if chunks else 0.0


def evidence_strength(chunks: list[ChunkHit], top: int = 3) -> float:
    """Mean similarity of the best `top` passages: what an answer would rest on. Weaker passages that
    adaptive-k also kept do not make a good match look poor."""
    best = sorted((c.similarity for c in chunks), reverse=True)[:top]
    return float(np.mean(best)) if best else 0.0


async def best_sentence_similarity(query: str, chunks: Sequence[ChunkHit]) -> float:
    """The similarity of the chunks' sentence closest to the query among those that share a content
    word with it (0 when none does)."""
    wanted = content_terms(query)
    sentences = [s for s in candidate_sentences(chunks) if content_terms(s.text) & wanted]
    if not sentences:
        return 0.0
    vectors = await embed_async([query] + [s.text for s in sentences])
    return float((vectors[1:] @ vectors[0]).max())


def confidence(chunk_similarity: float, sentence_similarity: float, settings: Settings) -> Confidence:
    """The chunk tier, raised to "medium" when one sentence answers the question."""
    by_chunks = tier(chunk_similarity, settings)
    if sentence_similarity >= settings.similarity.sentence_answers and by_chunks == "low":
        return "medium"
    return by_chunks


# A summary or a holistic comparison samples each document instead of searching it, so similarity to
# a question says nothing about it. What can be weak is the sample itself: passages with no sentence
# that reads as a statement (headings, lists of codes, table fragments, text lost to a scan) give a
# summary nothing to say. The share of a document's sampled passages that hold one is its evidence;
# the weakest document decides, with the feature spec's tier bounds (high > 0.75, low < 0.5).
READABLE_HIGH, READABLE_MEDIUM = 0.75, 0.5


def readable_share(chunks: Sequence[ChunkHit]) -> float:
    """The smallest share, over the documents sampled, of passages holding at least one sentence (0 when none)."""
    by_doc: dict[str, list[bool]] = {}
    for chunk in chunks:
        by_doc.setdefault(str(chunk.document_id), []).append(bool(candidate_sentences([chunk])))
    return min((sum(flags) / len(flags) for flags in by_doc.values()), default=0.0)


def sample_confidence(share: float) -> Confidence:
    if share > READABLE_HIGH:
        return "high"
    return "medium" if share >= READABLE_MEDIUM else "low"
