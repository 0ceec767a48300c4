"""Support-mode resolution (docs/architecture.md §8): the semantic cache, then a standalone question.

`check_cache` looks the raw question up in the tenant's answer cache (current knowledge only);
a hit answers at once and the run goes straight to format_response. Otherwise `contextualize`
rewrites a follow-up ("How do I export it to PDF?") into a question that stands alone, which
is what retrieval and the answer use.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from shared.db import support
from shared.db.pool import tenant_tx
from shared.embeddings.provider import embed_async
from shared.graph.context import StageContext
from shared.graph.state import AgentState, history_lines
from shared.llm import CallScope, build_prompt
from shared.llm.schemas import ContextualizeInputs, TextOutput

CACHE_ENGINE = "answer-cache"


async def check_cache(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any]:
    ctx = runtime.context
    vector = (await embed_async([state["query"]]))[0]
    async with tenant_tx(ctx.db, state["tenant_id"], state["user_id"]) as conn:
        version = await support.corpus_version(conn)
        hit = await support.cached_answer(conn, vector, version, ctx.settings.support_cache_similarity)
    if hit is None:
        return {"action": "inquire", "cache_hit": False}
    return {
        "action": "inquire",
        "cache_hit": True,
        "answered_by": "cache",
        "response": hit["answer"],
        "citations": hit["citations"],
        "retrieval_confidence": "high",
        "confidence_score": round(float(hit["similarity"]), 4),
        "engine": CACHE_ENGINE,
    }


async def contextualize(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any]:
    inputs = ContextualizeInputs(question=state["query"], history=history_lines(state))
    out = await runtime.context.llm.structured(
        "contextualize", TextOutput, build_prompt("contextualize", inputs), scope=CallScope.of(state)
    )
    return {"standalone_question": out.text, "clean_query": out.text}
