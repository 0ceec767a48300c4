"""Summarize (docs/architecture.md §7.3): a stratified sample of each document, summarized with citations, plus
an optional web supplement.

One document gets one consolidated summary; several get a section each, so every statement
stays attributed to its source.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from services.actions import retrieve
from services.actions.citations import CitationBook, passages_of
from services.actions.compose import stream_answer
from services.actions.evidence import mean_similarity
from services.actions.streaming import stream_text
from services.actions.web import WebSupplement, web_supplement
from shared.graph.context import StageContext
from shared.graph.state import AgentState, resolved_doc_ids
from shared.llm.schemas import AnswerInputs

SENTENCES_PER_DOCUMENT = 6
NOTHING_READY = "The selected documents have no ready text to summarize yet."


async def summarize(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any]:
    ctx = runtime.context
    chunks = await retrieve.sample(ctx, state, resolved_doc_ids(state))
    book = CitationBook(chunks)
    text = ""
    if chunks:
        query = state.get("clean_query") or state.get("query", "")
        inputs = AnswerInputs(query=query, passages=passages_of(chunks), sentences=SENTENCES_PER_DOCUMENT)
        text = await stream_answer(ctx, state, "summarize", inputs, book)
    if not text:
        text = NOTHING_READY
        stream_text(text)
    web = WebSupplement()
    if state.get("enable_web_search"):
        # What the web adds about the summarized documents' subject (e.g. later amendments).
        topic = state.get("clean_query") or ""
        web = await web_supplement(ctx, state, "summarize", topic, first_number=len(book.used) + 1)
        if web.text:
            stream_text("\n\n" + web.text)
    return {
        "response": "\n\n".join(part for part in (text, web.text) if part),
        "citations": book.citations() + web.citations,
        "notices": [web.notice] if web.notice else [],
        "web_search_query": web.query,
        # A summary covers the whole document by construction: sampling, not similarity.
        "retrieval_confidence": "high" if book.used else "low",
        "confidence_score": round(mean_similarity(book.used), 4),
        "engine": ctx.llm.engine("summarize"),
    }
