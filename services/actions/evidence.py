"""How well the retrieved evidence matches: mean similarity and its confidence tier."""

from __future__ import annotations

import numpy as np

from shared.config import Settings
from shared.contracts import ChunkHit, Confidence


def tier(mean_similarity: float, settings: Settings) -> Confidence:
    if mean_similarity >= settings.confidence_high:
        return "high"
    if mean_similarity >= settings.confidence_medium:
        return "medium"
    return "low"


def mean_similarity(chunks: list[ChunkHit]) -> float:
    return float(np.mean([c.similarity for c in chunks])) if chunks else 0.0


def evidence_strength(chunks: list[ChunkHit], top: int = 3) -> float:
    """Mean similarity of the best `top` passages: what an answer would rest on. Weaker passages that
    adaptive-k also kept do not make a good match look poor."""
    best = sorted((c.similarity for c in chunks), reverse=True)[:top]
    return float(np.mean(best)) if best else 0.0
