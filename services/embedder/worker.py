"""The embedding service (`policypal worker embedder`): `pp.rpc.embed` in the `embedder` queue group.

It is the only process that loads the embedding model (MiniLM on ONNX Runtime, or the OpenAI
client), so every other worker stays small and starts at once. Texts are answered, in order, from
1. the recent-texts cache (a turn's query is embedded by retrieval, then asked for again with the
   sentences to rank), 2. the sentence vectors stored at ingest, when the request names a
   tenant and user (looked up under their row-level security), 3. the model, through the
   micro-batcher shared by all concurrent requests. Replicas scale like any worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict

import numpy as np

from services.embedder.batcher import BACKGROUND, BULK, INTERACTIVE, MicroBatcher
from shared.bus.rpc import Concurrently, responder
from shared.contracts import EmbedRequest, EmbedResponse
from shared.db.pool import Database, tenant_tx
from shared.db.sentences import stored_vectors, text_key
from shared.embeddings.provider import Embedder, get_embedder
from shared.health import with_health
from shared.runtime.service import Infra, run_service

log = logging.getLogger(__name__)

QUEUE_GROUP = "embedder"
RECENT_TEXTS = 4096


class RecentTexts:
    """A small LRU of text → vector: identical texts within a turn are encoded once."""

    def __init__(self, size: int = RECENT_TEXTS) -> None:
        self._size = size
        self._rows: OrderedDict[str, np.ndarray] = OrderedDict()

    def get(self, text: str) -> np.ndarray | None:
        row = self._rows.get(text)
        if row is not None:
            self._rows.move_to_end(text)
        return row

    def put(self, text: str, row: np.ndarray) -> None:
        self._rows[text] = row
        self._rows.move_to_end(text)
        while len(self._rows) > self._size:
            self._rows.popitem(last=False)


class EmbeddingService:
    def __init__(
        self, embedder: Embedder, db: Database | None, *, stored_as: str, window_s: float, max_batch: int
    ) -> None:
        self.embedder = embedder
        # The model name the ingest worker stored sentence vectors under (PP_EMBEDDING_MODEL).
        self.stored_as = stored_as
        self.db = db
        self.batcher = MicroBatcher(embedder.embed, window_s=window_s, max_batch=max_batch)
        self.recent = RecentTexts()

    async def stored(self, request: EmbedRequest, texts: list[str]) -> dict[str, np.ndarray]:
        if self.db is None or request.tenant_id is None or not texts:
            return {}
        keys = {text_key(t): t for t in texts}
        async with tenant_tx(self.db, request.tenant_id, request.user_id) as conn:
            found = await stored_vectors(conn, self.stored_as, list(keys))
        return {keys[k]: v for k, v in found.items()}

    async def embed(self, request: EmbedRequest) -> EmbedResponse:
        started = time.perf_counter()
        rows: dict[str, np.ndarray] = {}
        for text in request.texts:
            cached = self.recent.get(text)
            if cached is not None:
                rows[text] = cached
        missing = [t for t in dict.fromkeys(request.texts) if t not in rows]
        rows |= await self.stored(request, missing)
        missing = [t for t in missing if t not in rows]
        if missing:
            priority = {"bulk": BULK, "background": BACKGROUND}.get(request.priority, INTERACTIVE)
            computed = await self.batcher.embed(missing, priority)
            for text, row in zip(missing, computed, strict=True):
                rows[text] = row
                self.recent.put(text, row)
        vectors = np.stack([rows[t] for t in request.texts])
        took_ms = (time.perf_counter() - started) * 1000
        return EmbedResponse.of(self.embedder.name, vectors, computed=len(missing), took_ms=took_ms)


def build_service(infra: Infra, embedder: Embedder) -> EmbeddingService:
    settings = infra.settings
    return EmbeddingService(
        embedder,
        infra.maybe_db,
        stored_as=settings.embedding_model,
        window_s=settings.embed_batch_window_ms / 1000,
        max_batch=settings.embed_max_batch,
    )


async def answer(infra: Infra, service: EmbeddingService, stop: asyncio.Event) -> None:
    """Answer `pp.rpc.embed` until `stop`, then finish the requests already taken."""
    batching = asyncio.create_task(service.batcher.run())
    handler = Concurrently(responder(EmbedRequest, service.embed))
    sub = await infra.bus.nc.subscribe(infra.bus.subjects.rpc_embed, queue=QUEUE_GROUP, cb=handler.dispatch)
    log.info("embedding service ready: %s (%d-d)", service.embedder.name, service.embedder.dim)
    try:
        await stop.wait()
    finally:
        await sub.drain()
        await handler.finish()
        batching.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await batching
        stats = service.batcher.stats
        log.info("embedded %d texts in %d batches (≤ %d requests)", stats.texts, stats.batches, stats.most_requests)


async def serve(infra: Infra, stop: asyncio.Event) -> None:
    # Load (and on the very first start, export) the model before answering anything: until then
    # callers get "no responders" at once and retry, rather than timing out behind the load.
    embedder = await asyncio.to_thread(get_embedder, infra.settings)
    await answer(infra, build_service(infra, embedder), stop)


def main() -> None:
    asyncio.run(run_service("embedder", with_health(serve, subjects=["rpc_embed"]), embeds_remotely=False))
