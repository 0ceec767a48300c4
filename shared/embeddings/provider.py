"""The embedder protocol, the model behind the embedding service, and `embed_async` for everyone.

Only the embedding service (`policypal worker embedder`) holds a model. Every other process
that `run_service` starts embeds over `pp.rpc.embed` (`use_embedding_service`); code running
outside a service (unit tests, benchmarks, scripts) falls back to a model of its own, loaded
lazily on first use.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

import numpy as np

from shared.config import Settings, get_settings
from shared.text.tables import without_unit

if TYPE_CHECKING:
    from shared.embeddings.client import EmbeddingClient


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text."""
        ...


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
            batch = texts[start : start + self._batch]
            if self._dimensions:
                response = self._client.embeddings.create(model=self.name, input=batch, dimensions=self._dimensions)
            else:
                response = self._client.embeddings.create(model=self.name, input=batch)
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
    from shared.embeddings.onnx_minilm import OnnxMiniLM

    return OnnxMiniLM(
        settings.embedding_precision,
        model_root=settings.model_dir,
        threads=settings.embedding_threads,
        batch_size=settings.embedding_batch,
    )


_models: dict[tuple[object, ...], Embedder] = {}


def get_embedder(settings: Settings) -> Embedder:
    """The model `settings` name, loaded once per process: a load takes seconds and the model's memory."""
    key = (
        settings.embedding_provider,
        settings.embedding_model,
        settings.embedding_precision,
        settings.embedding_dim,
        settings.model_dir,
    )
    if key not in _models:
        embedder = build_embedder(settings)
        if embedder.dim != settings.embedding_dim:
            raise RuntimeError(
                f"embedder {embedder.name} produces {embedder.dim}-d vectors "
                f"but PP_EMBEDDING_DIM is {settings.embedding_dim}"
            )
        _models[key] = embedder
    return _models[key]


_service: EmbeddingClient | None = None


def use_embedding_service(client: EmbeddingClient | None) -> None:
    """Route this process's `embed_async` calls to the embedding service (None: back to a local model)."""
    global _service
    _service = client


async def embed_async(
    texts: list[str], *, stored: bool = True, bulk: bool = False, background: bool = False
) -> np.ndarray:
    """Vectors of `texts`: from the embedding service when this process uses one (`stored`: vectors
    saved at ingest may answer; `bulk`: ingest, after interactive requests; `background`: after
    bulk ones too), else from a local model (of the environment's settings: no service composed
    this process) run off the event loop. A table row's unit is left out (shared/text/tables.py)."""
    texts = [without_unit(text) for text in texts]
    if _service is not None:
        return await _service.embed(texts, stored=stored, bulk=bulk, background=background)
    return await asyncio.to_thread(lambda: get_embedder(get_settings()).embed(texts))
