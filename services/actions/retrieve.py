"""The actions' calls to the retrieval worker, scoped to the run's tenant and user."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from shared.contracts import ChunkHit, SampleRequest, Scope, SearchRequest
from shared.embeddings.client import EmbeddingUnavailable
from shared.graph.context import StageContext
from shared.graph.state import AgentState
from shared.retrieval import client as retrieval

KEYWORD_RETRY_PAUSE_S = 1.0


async def search(
    ctx: StageContext,
    state: AgentState,
    query: str,
    doc_ids: Sequence[str],
    *,
    per_doc_k: int | None = None,
    total_k: int | None = None,
    min_similarity: float | None = None,
    hybrid: bool | None = None,
    rows: bool = False,
    neighbours: bool = False,
) -> list[ChunkHit]:
    request = SearchRequest(
        tenant_id=state["tenant_id"],
        user_id=state["user_id"],
        query_text=query,
        scope=Scope(doc_ids=list(doc_ids)),
        per_doc_k=per_doc_k or ctx.settings.per_doc_k,
        total_k=total_k or ctx.settings.total_k,
        min_similarity=min_similarity,
        hybrid=hybrid,
        rows=rows,
        neighbours=neighbours,
    )
    response = await retrieval.search(ctx.bus, request, timeout=ctx.settings.rpc_timeout_s)
    if response.mode == "keyword":
        # A query embedding lost while a clustered NATS fails over is answered on a second try; a
        # stopped embedding service is not (it answers "no responders" at once), so this costs it
        # only the pause.
        await asyncio.sleep(KEYWORD_RETRY_PAUSE_S)
        response = await retrieval.search(ctx.bus, request, timeout=ctx.settings.rpc_timeout_s)
    if response.mode == "keyword":
        # Retrieval could not embed the query and ranked by keywords alone: every similarity is 0,
        # so the turn would ask "no strong matches?" for the wrong reason. Say what is wrong instead.
        raise EmbeddingUnavailable("the embedding service is unavailable (documents could only be keyword-searched)")
    return response.chunks


async def sample(ctx: StageContext, state: AgentState, doc_ids: Sequence[str]) -> list[ChunkHit]:
    request = SampleRequest(tenant_id=state["tenant_id"], user_id=state["user_id"], doc_ids=list(doc_ids))
    return (await retrieval.sample(ctx.bus, request, timeout=ctx.settings.rpc_timeout_s)).chunks
