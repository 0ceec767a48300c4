"""Inquire (SPEC §7.5): search the resolved documents (or everything visible), answer with [n].

Prompt modes of the graph-fix plan:
A — relevant context found: the model answers only from it;
B — the user has no documents at all: say so (the answer must not pretend to know them);
C — documents exist but nothing relevant was found: say so, do not answer from elsewhere.
B and C are fixed texts, so no model call is spent on them.
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph.runtime import Runtime

from services.actions import retrieve
from services.actions.citations import CitationBook, passages_of
from services.actions.compose import stream_answer
from services.actions.evidence import mean_similarity, tier
from services.actions.streaming import stream_text
from services.actions.web import WebSupplement, web_supplement
from shared.db.pool import tenant_tx
from shared.graph.context import StageContext
from shared.graph.state import AgentState, earlier_user_messages
from shared.llm import CallScope, ModelError, build_prompt
from shared.llm.schemas import AnswerInputs, RewriteInputs, RewriteOutput

log = logging.getLogger(__name__)
ANSWER_SENTENCES = 4
NO_DOCUMENTS = (
    "You don't have any documents yet, so there is nothing I can answer from. "
    "Upload a policy or regulation and ask again."
)


def nothing_relevant(titles: list[str]) -> str:
    where = ", ".join(titles) if titles else "your documents"
    return (
        f"I couldn't find anything relevant to your question in {where}. "
        "Try rephrasing, or tag the document that should contain the answer."
    )


async def rewrite_query(ctx: StageContext, state: AgentState, query: str) -> str:
    """A standalone search query (task `query_rewrite`); the clean query itself on any model failure."""
    summary = state.get("conversation_summary")
    history = [f"(summary of earlier turns) {summary}"] if summary else []
    inputs = RewriteInputs(query=query, action="inquire", history=history + earlier_user_messages(state))
    try:
        out = await ctx.llm.structured(
            "query_rewrite", RewriteOutput, build_prompt("query_rewrite", inputs), scope=CallScope.of(state)
        )
    except ModelError as exc:
        log.warning("query_rewrite failed (%s); searching with the clean query", exc)
        return query
    return out.query


async def inquire(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any]:
    ctx = runtime.context
    settings = ctx.settings
    query = state.get("clean_query") or state.get("query", "")
    doc_ids = state.get("resolved_doc_ids", [])
    chunks = await retrieve.search(ctx, state, await rewrite_query(ctx, state, query), doc_ids)
    book = CitationBook(chunks)
    doc_text = ""
    if chunks:
        inputs = AnswerInputs(
            query=query, passages=passages_of(chunks), sentences=ANSWER_SENTENCES, floor=settings.min_similarity
        )
        doc_text = await stream_answer(ctx, state, "inquire", inputs, book)
    doc_citations = book.citations()
    web = WebSupplement()
    if state.get("enable_web_search"):
        web = await web_supplement(ctx, "inquire", query, first_number=len(doc_citations) + 1)
    if not doc_text and not web.text:
        doc_text = (
            nothing_relevant(state.get("resolved_doc_titles", []))
            if (doc_ids or chunks)
            else await _no_docs_text(ctx, state)
        )
        stream_text(doc_text)
    if web.text:
        stream_text(("\n\n" if doc_text else "") + web.text)
    text = "\n\n".join(part for part in (doc_text, web.text) if part)
    score = mean_similarity(book.used)
    return {
        "response": text,
        "citations": doc_citations + web.citations,
        "retrieval_confidence": tier(score, settings) if book.used else "low",
        "confidence_score": round(score, 4),
        "engine": ctx.llm.engine("inquire"),
        "notices": [web.notice] if web.notice else [],
        "web_search_query": web.query,
    }


async def _no_docs_text(ctx: StageContext, state: AgentState) -> str:
    async with tenant_tx(ctx.db, state["tenant_id"], state["user_id"]) as conn:
        row = await (await conn.execute("SELECT count(*) AS n FROM documents WHERE status = 'ready'")).fetchone()
    return NO_DOCUMENTS if row["n"] == 0 else nothing_relevant([])
