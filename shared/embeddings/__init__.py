"""Embedding providers behind one small protocol (docs/architecture.md §9)."""

from shared.embeddings.provider import Embedder, get_embedder

__all__ = ["Embedder", "get_embedder"]
