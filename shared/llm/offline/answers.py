"""Offline summarize, inquire and compare: sentences of the passages, each followed by its `[n]`.

Sentences are ranked by embedding similarity (to the question, or to a document's centroid
for "what is this about"), picked with MMR for diversity, and kept in the passages' words.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shared.embeddings.provider import embed_async
from shared.llm.offline.extractive import Extract, candidate_sentences, select_extracts
from shared.llm.schemas import AnswerInputs, Passage

NOTHING_ON_TOPIC = "Nothing on this topic."


async def best_extracts(query: str, passages: Sequence[Passage], *, k: int, floor: float) -> list[Extract]:
    """The `k` most relevant, mutually diverse sentences of the passages."""
    sentences = candidate_sentences(passages)
    if not sentences:
        return []
    vectors = await embed_async([query] + [s.text for s in sentences])
    return select_extracts(vectors[0], sentences, vectors[1:], k=k, floor=floor)


async def central_extracts(passages: Sequence[Passage], *, k: int) -> list[Extract]:
    """Sentences closest to the passages' centroid (what the text is mostly about), in reading order."""
    sentences = candidate_sentences(passages)
    if not sentences:
        return []
    vectors = await embed_async([s.text for s in sentences])
    centroid = vectors.mean(axis=0)
    centroid = centroid / (np.linalg.norm(centroid) or 1.0)
    picks = select_extracts(centroid, sentences, vectors, k=k, floor=-1.0)
    return sorted(picks, key=lambda e: sentences.index(e.sentence))


def cited(extracts: list[Extract], passages: Sequence[Passage]) -> str:
    return " ".join(f"{e.sentence.text} [{passages[e.sentence.chunk_index].n}]" for e in extracts)


def by_document(passages: list[Passage]) -> list[list[Passage]]:
    groups: dict[str, list[Passage]] = {}
    for p in passages:
        groups.setdefault(p.document_id, []).append(p)
    return list(groups.values())


async def inquire(inputs: AnswerInputs) -> str:
    extracts = await best_extracts(inputs.query, inputs.passages, k=inputs.sentences, floor=inputs.floor)
    return cited(extracts, inputs.passages)


async def summarize(inputs: AnswerInputs) -> str:
    groups = by_document(inputs.passages)
    sections = []
    for group in groups:
        body = cited(await central_extracts(group, k=inputs.sentences), group)
        sections.append(body if len(groups) == 1 else f"**{group[0].document}**\n\n{body}")
    return "\n\n".join(s for s in sections if s.strip())


async def compare_focused(inputs: AnswerInputs) -> str:
    sections = [f"How the documents address “{inputs.focus}”:"]
    for group in by_document(inputs.passages):
        extracts = await best_extracts(inputs.focus, group, k=inputs.sentences, floor=-1.0)
        sections.append(f"**{group[0].document}**\n\n{cited(extracts, group) or NOTHING_ON_TOPIC}")
    return "\n\n".join(sections)


async def compare_holistic(inputs: AnswerInputs) -> str:
    sections = ["What each document is mainly about:"]
    for group in by_document(inputs.passages):
        body = cited(await central_extracts(group, k=inputs.sentences), group)
        sections.append(f"**{group[0].document}**\n\n{body or NOTHING_ON_TOPIC}")
    return "\n\n".join(sections)
