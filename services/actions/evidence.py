"""How well the retrieved evidence matches: mean similarity, the best sentence, and the confidence tier.

Chunk similarity alone under-rates a short multi-topic document: a one-page standard is one chunk
whose embedding averages its sections, so "Who approves exceptions?" is far from it even though
one of its sentences says exactly who does. The best sentence's similarity is the second opinion:
from `sentence_answers` on, the evidence is at least "medium" (issue #27), provided the sentence
shares a content word with the question ("Exceptions require written approval…" for "Who approves
exceptions?"); a sentence that is merely about a neighbouring subject ("transaction records are
kept for five years" for "How are invoices archived?") does not count, nor does one that shares a
single word of a longer question ("A breach of a minimum ratio must be reported within two business
days" for "What is the deadline for notifying a data breach to the supervisory authority?"): it
must hold more than a third of the question's content words.

The closest sentence also checks the other way. A question that names the tagged document ("How
many days of notice must be given before terminating the MIT licence?") is similar to every chunk
of it (a one-chunk licence that the question names even reaches "high"), while no sentence is about
what is asked: below `sentence_on_topic` the evidence is "low", and the user is told that the
documents do not answer, with the closest passages offered (tuned on the dev split of
examples/eval: docs/answers-on-real-documents.md).
A figure computed from a filing's lines ("Calculate the operating margin", "SG&A as a percentage of
net revenues") has no sentence that states it, and the rows it is computed from embed far from the
question. When every line of the ratio the question names, or of the definition it gives, is a row
of the passages, the evidence is "medium" as well (shared/text/ratios.py).
Sentence vectors are stored at ingest, so asking costs a lookup, not an embedding.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from services.actions.asked_names import asked_name, names
from services.actions.quantities import asked_kind, states
from shared.config import Settings
from shared.contracts import ChunkHit, Confidence
from shared.embeddings.provider import embed_async
from shared.text.ratios import UNNAMING, computed_parts
from shared.text.search_query import content_terms
from shared.text.sentences import Sentence, candidate_sentences
from shared.text.tables import printed_rows, row_head

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


@dataclass(frozen=True)
class SentenceEvidence:
    """How close the passages' sentences come to the question: `answers`, the closest one holding more
    than a third of its content words (0 when none does); `closest`, the closest of all (None when
    not measured: it then lowers nothing); `computes`, whether their rows hold every line the figure
    asked is computed from; `unmentioned`, the words it asks about that the reader's documents never
    mention (services/actions/unmentioned.py); `unstated`, whether it asks for a quantity (how many,
    much, long, often: quantities.py) or who or which named one (asked_names.py) that none of the
    sentences holding its words states."""

    answers: float = 0.0
    closest: float | None = None
    computes: bool = False
    unmentioned: tuple[str, ...] = ()
    unstated: bool = False

    @property
    def names_a_gap(self) -> bool:
        """Whether it lowers the evidence for a reason it can name: a word or a quantity the documents lack."""
        return (bool(self.unmentioned) or self.unstated) and not self.computes


def holds_enough(sentence: set[str], wanted: set[str]) -> bool:
    common = sentence & wanted
    return bool(common) and 3 * len(common) > len(wanted)


# A message of one or two words ("Summary", "Retention?", "GDPR fines") names a topic rather than
# asking something. Its rewrite for search ("Summary: the key points of Atomic Habits") asks for an
# overview, which no single sentence is close to, so the closest sentence says nothing about whether
# the passages answer it: it is not measured, and lowers no tier.
TOPIC_WORDS = 2
WORD = re.compile(r"\w+")


def asks_something(message: str) -> bool:
    """Whether the user's own words ask something a sentence could answer (more than `TOPIC_WORDS` words)."""
    return len(WORD.findall(message)) > TOPIC_WORDS


async def sentence_evidence(query: str, chunks: Sequence[ChunkHit], *, asks: bool = True) -> SentenceEvidence:
    """The similarities of the chunks' sentences closest to the query (services/actions/evidence.py);
    `asks` False (see `asks_something`) leaves the closest unmeasured."""
    sentences = candidate_sentences(chunks)
    wanted = content_terms(query)
    if not sentences:
        return SentenceEvidence(closest=0.0 if asks else None)
    vectors = await embed_async([query] + [s.text for s in sentences])
    similarities = vectors[1:] @ vectors[0]
    holding = [i for i, s in enumerate(sentences) if holds_enough(content_terms(s.text), wanted)]
    kind, name = asked_kind(query), asked_name(query)
    stated = kind is None or not holding or any(states(kind, sentences[i].text) for i in holding)
    named = name is None or not holding or any(names(name, sentences[i].text, query) for i in holding)
    return SentenceEvidence(
        answers=max((float(similarities[i]) for i in holding), default=0.0),
        closest=float(similarities.max()) if asks else None,
        computes=computes(query, sentences),
        unstated=not (stated and named),
    )


def computes(query: str, sentences: Sequence[Sentence]) -> bool:
    """Every line the figure asked is computed from (two or more) is a row's label among the sentences:
    all the words of one of its labels, "total" aside."""
    parts = computed_parts(query)
    if len(parts) < 2:
        return False
    labels = [content_terms(label) for s in sentences for label in row_labels(s.text)]
    return all(any(content_terms(name) - UNNAMING <= label for name in part for label in labels) for part in parts)


def row_labels(text: str) -> list[str]:
    """The labels of the rows a sentence is: a recognised table's row, or a statement's run of rows."""
    head = row_head(text)
    return [head] if head else [label for label, _ in printed_rows(text)]


def confidence(chunk_similarity: float, sentence: SentenceEvidence, settings: Settings) -> Confidence:
    """The chunk tier, raised to "medium" when one sentence answers the question or the rows hold what
    it is computed from, lowered to "low" when no sentence is about it, the documents never mention
    something it asks about, or it asks a quantity that the sentences about it do not state."""
    by_chunks, thresholds = tier(chunk_similarity, settings), settings.similarity
    if sentence.names_a_gap:
        return "low"
    if by_chunks == "low" and (sentence.answers >= thresholds.sentence_answers or sentence.computes):
        return "medium"
    if sentence.computes:
        return by_chunks
    if by_chunks != "low" and sentence.closest is not None and sentence.closest < thresholds.sentence_on_topic:
        return "low"
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
