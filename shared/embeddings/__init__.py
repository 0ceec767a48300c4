"""Embedding providers behind one small protocol (SPEC §8)."""

from shared.embeddings.provider import Embedder, get_embedder

__all__ = ["Embedder", "get_embedder"]
