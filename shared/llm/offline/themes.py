"""Themes of several documents for holistic comparison: k-means over sentence embeddings.

Deterministic: k-means++ seeding from a fixed generator, Lloyd iterations until assignments
settle. A theme is labelled by its most frequent distinctive words, so the label is made of the
documents' own words.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

_STOP = frozenset(
    {"the", "a", "an", "and", "or", "of", "to", "in", "on", "for", "by", "with", "at", "from", "as", "is", "are"}
    | {"be", "been", "must", "shall", "may", "should", "will", "can", "it", "its", "this", "that", "these", "those"}
    | {"their", "they", "all", "any", "each", "every", "not", "no", "after", "before", "within", "least", "more"}
    | {"than", "which", "who", "where", "when", "has", "have", "had", "was", "were", "also", "such", "other"}
)


@dataclass(frozen=True)
class Theme:
    label: str
    members: list[int]  # sentence indices
    centroid: np.ndarray


def kmeans(vectors: np.ndarray, k: int, *, seed: int = 7, rounds: int = 50) -> np.ndarray:
    """Cluster labels of unit vectors under cosine similarity."""
    rng = np.random.default_rng(seed)
    centres = [vectors[rng.integers(len(vectors))]]
    while len(centres) < k:
        distance = 1.0 - (vectors @ np.array(centres).T).max(axis=1)
        weights = np.clip(distance, 0, None) ** 2
        total = weights.sum()
        choice = rng.choice(len(vectors), p=weights / total) if total > 0 else rng.integers(len(vectors))
        centres.append(vectors[choice])
    labels = np.full(len(vectors), -1)
    for _ in range(rounds):
        new = np.argmax(vectors @ np.array(centres).T, axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
        for c in range(k):
            members = vectors[labels == c]
            if len(members):
                mean = members.mean(axis=0)
                centres[c] = mean / (np.linalg.norm(mean) or 1.0)
    return labels


def label_of(texts: list[str], words: int = 3) -> str:
    counts = Counter(w for text in texts for w in set(re.findall(r"[a-z][a-z-]{2,}", text.lower())) if w not in _STOP)
    return ", ".join(w for w, _ in counts.most_common(words))


def find_themes(texts: list[str], vectors: np.ndarray, k: int) -> list[Theme]:
    """Up to `k` themes, largest first; sentences keep their indices into `texts`."""
    k = max(1, min(k, len(texts)))
    labels = kmeans(vectors, k)
    themes = []
    for c in range(k):
        members = [i for i in range(len(texts)) if labels[i] == c]
        if not members:
            continue
        centroid = vectors[members].mean(axis=0)
        centroid = centroid / (np.linalg.norm(centroid) or 1.0)
        themes.append(Theme(label_of([texts[i] for i in members]), members, centroid))
    return sorted(themes, key=lambda t: -len(t.members))
