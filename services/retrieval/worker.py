"""The retrieval worker: NATS request-reply in the `retrieval` queue group (docs/architecture.md §6).

Replicas share requests through the queue group; a bad request gets an `RpcError` reply
naming the problem, never silence.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid

import numpy as np
from faststream.nats import NatsRouter

from services.retrieval import search
from shared.bus.broker import serve_routers
from shared.bus.delivery import payload_decoder
from shared.bus.rpc import rpc_router
from shared.config import Settings
from shared.contracts import SampleRequest, SampleResponse, SearchRequest, SearchResponse
from shared.db.conn import Conn
from shared.db.pool import Database, tenant_tx
from shared.embeddings.provider import embed_async
from shared.health import with_health
from shared.runtime.service import Infra, run_service

log = logging.getLogger(__name__)

QUEUE_GROUP = "retrieval"
# Requests handled at once per replica: each holds one pooled database connection while it searches.
CONCURRENT_REQUESTS = 4


async def query_vector(req: SearchRequest) -> np.ndarray | None:
    """The query's embedding, or None when the embedder fails (search degrades to full text)."""
    if req.query_embedding is not None:
        return np.asarray(req.query_embedding, dtype=np.float32)
    try:
        return (await embed_async([req.query_text or ""], stored=False))[0]
    except Exception as exc:
        log.warning("no query embedding (%s); answering with full-text search only", exc)
        return None


async def fresh_vectors(
    conn: Conn, req: SearchRequest, doc_ids: list[uuid.UUID] | None, limit: int, budget_s: float
) -> search.Fresh | None:
    """Question-time vectors for the best full-text candidates among chunks still waiting for
    theirs (a document searchable by words, its vectors on the way: docs/ingest.md), so meaning
    search ranks them too. None when there are none, or the embedder cannot help within
    `budget_s` (a loaded machine: the search must still answer before the caller's timeout)."""
    if not req.query_text:
        return None
    waiting = await search.unembedded_candidates(conn, req.query_text, doc_ids, limit)
    if not waiting:
        return None
    try:
        vectors = await asyncio.wait_for(embed_async([text for _, text in waiting], stored=False), budget_s)
    except TimeoutError:
        log.warning("question-time vectors of %d chunks took over %.1fs: words only", len(waiting), budget_s)
        return None
    except Exception as exc:
        log.warning("no vectors for %d chunks still being indexed (%s); they rank by words only", len(waiting), exc)
        return None
    return search.Fresh([chunk_id for chunk_id, _ in waiting], vectors)


async def run_search(db: Database, req: SearchRequest, settings: Settings) -> SearchResponse:
    started = time.perf_counter()
    query = await query_vector(req)
    floor = settings.similarity.min_similarity if req.min_similarity is None else req.min_similarity
    hybrid = settings.hybrid_search if req.hybrid is None else req.hybrid
    if query is None and not req.query_text:
        raise RuntimeError("no embedding could be computed and there is no query text to fall back on")
    async with tenant_tx(db, req.tenant_id, req.user_id) as conn:
        doc_ids = await search.scope_document_ids(conn, req.scope)
        limit = settings.search_unembedded_candidates if query is not None else 0
        # What is left of half the caller's timeout (the query's own embedding counts), so a slow
        # embedder costs meaning search in the window, never the answer.
        budget_s = min(settings.embed_timeout_s, settings.rpc_timeout_s / 2) - (time.perf_counter() - started)
        fresh = await fresh_vectors(conn, req, doc_ids, limit if budget_s > 0.5 else 0, budget_s)
        if doc_ids is None:
            hits = await search.search_all(
                conn, query, req.query_text, total_k=req.total_k, floor=floor, hybrid=hybrid, fresh=fresh
            )
        else:
            hits = await search.search_scoped(
                conn,
                query,
                req.query_text,
                doc_ids,
                per_doc_k=req.per_doc_k,
                total_k=req.total_k,
                floor=floor,
                hybrid=hybrid,
                fresh=fresh,
                rows=req.rows,
                neighbours=req.neighbours,
            )
    mode = "keyword" if query is None else "hybrid" if hybrid and req.query_text else "vector"
    return SearchResponse(chunks=hits, took_ms=(time.perf_counter() - started) * 1000, mode=mode)


async def run_sample(db: Database, req: SampleRequest) -> SampleResponse:
    started = time.perf_counter()
    async with tenant_tx(db, req.tenant_id, req.user_id) as conn:
        hits = await search.sample_documents(conn, req.doc_ids)
    return SampleResponse(chunks=hits, took_ms=(time.perf_counter() - started) * 1000)


def retrieval_router(infra: Infra) -> NatsRouter:
    """`pp.rpc.retrieval.search|sample` in the `retrieval` queue group; replies are the response models."""
    router = rpc_router()
    subjects = infra.bus.subjects

    @router.subscriber(
        subjects.rpc_search,
        queue=QUEUE_GROUP,
        max_workers=CONCURRENT_REQUESTS,
        decoder=payload_decoder(SearchRequest),
        description="Hybrid vector + full-text search within a tenant, balanced per document.",
    )
    async def on_search(request: SearchRequest) -> SearchResponse:
        return await run_search(infra.db, request, infra.settings)

    @router.subscriber(
        subjects.rpc_sample,
        queue=QUEUE_GROUP,
        max_workers=CONCURRENT_REQUESTS,
        decoder=payload_decoder(SampleRequest),
        description="The opening chunks of each document, for summaries and audits.",
    )
    async def on_sample(request: SampleRequest) -> SampleResponse:
        return await run_sample(infra.db, request)

    return router


async def serve(infra: Infra, stop: asyncio.Event) -> None:
    await serve_routers(infra.bus, stop, retrieval_router(infra))


def main() -> None:
    # The RPC subscriptions are on the process's one connection, so readiness sees them.
    asyncio.run(run_service("retrieval", with_health(serve, subjects=["rpc_search", "rpc_sample"])))
