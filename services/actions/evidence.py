"""Turning retrieved chunks into cited answer text with the offline extractive engine.

Shared by every action: pick the sentences that matter, number each source chunk once as
`[n]`, and build §9 citations (document, page, quote ≤ 300 chars, navigation target).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shared.config import Settings
from shared.contracts import ChunkHit, Citation
from shared.embeddings.provider import embed_async
from shared.llm.offline.extractive import Extract, candidate_sentences, quote_of, select_extracts


@dataclass
class CitationBook:
    """Numbers chunks in order of first citation and collects the sentences quoted from each."""

    chunks: list[ChunkHit]
    _numbers: dict[uuid.UUID, int] = field(default_factory=dict)
    _quotes: dict[uuid.UUID, list[str]] = field(default_factory=dict)

    def cite(self, chunk: ChunkHit, sentence: str) -> int:
        n = self._numbers.setdefault(chunk.chunk_id, len(self._numbers) + 1)
        self._quotes.setdefault(chunk.chunk_id, []).append(sentence)
        return n

    def cited_text(self, extracts: list[Extract]) -> str:
        """The extracts as prose, each sentence followed by its source's number."""
        return " ".join(
            f"{e.sentence.text} [{self.cite(self.chunks[e.sentence.chunk_index], e.sentence.text)}]" for e in extracts
        )

    @property
    def used(self) -> list[ChunkHit]:
        by_id = {c.chunk_id: c for c in self.chunks}
        return [by_id[cid] for cid in self._numbers]

    def citations(self) -> list[dict[str, Any]]:
        out = []
        for chunk in self.used:
            out.append(
                Citation(
                    n=self._numbers[chunk.chunk_id],
                    document_id=chunk.document_id,
                    title=f"{chunk.title} ({chunk.version})",
                    page=chunk.page,
                    quote=quote_of(self._quotes[chunk.chunk_id][:3]),
                    chunk_id=chunk.chunk_id,
                    navigation_target={
                        "type": "document_page",
                        "document_id": str(chunk.document_id),
                        "page": chunk.page,
                    },
                ).model_dump(mode="json")
            )
        return out


async def best_extracts(
    query: str, chunks: list[ChunkHit], *, k: int, floor: float, indices: list[int] | None = None
) -> list[Extract]:
    """The `k` most relevant, mutually diverse sentences of `chunks` (or `chunks[indices]`)."""
    sentences = candidate_sentences(chunks, indices)
    if not sentences:
        return []
    vectors = await embed_async([query] + [s.text for s in sentences])
    return select_extracts(vectors[0], sentences, vectors[1:], k=k, floor=floor)


async def central_extracts(chunks: list[ChunkHit], indices: list[int], *, k: int) -> list[Extract]:
    """Sentences of `chunks[indices]` closest to their centroid: what that text is mostly about."""
    sentences = candidate_sentences(chunks, indices)
    if not sentences:
        return []
    vectors = await embed_async([s.text for s in sentences])
    centroid = vectors.mean(axis=0)
    centroid = centroid / (np.linalg.norm(centroid) or 1.0)
    picks = select_extracts(centroid, sentences, vectors, k=k, floor=-1.0)
    return sorted(picks, key=lambda e: (e.sentence.chunk_index, sentences.index(e.sentence)))


def tier(mean_similarity: float, settings: Settings) -> str:
    if mean_similarity >= settings.confidence_high:
        return "high"
    if mean_similarity >= settings.confidence_medium:
        return "medium"
    return "low"


def mean_similarity(chunks: list[ChunkHit]) -> float:
    return float(np.mean([c.similarity for c in chunks])) if chunks else 0.0
