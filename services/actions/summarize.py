"""Summarize (SPEC §7.5): a stratified sample of each document, summarized with citations.

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
from shared.graph.context import StageContext
from shared.graph.state import AgentState
from shared.llm.schemas import AnswerInputs

SENTENCES_PER_DOCUMENT = 6
NOTHING_READY = "The selected documents have no ready text to summarize yet."


async def summarize(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any]:
    ctx = runtime.context
    chunks = await retrieve.sample(ctx, state, state["resolved_doc_ids"])
    book = CitationBook(chunks)
    text = ""
    if chunks:
        query = state.get("clean_query") or state.get("query", "")
        inputs = AnswerInputs(query=query, passages=passages_of(chunks), sentences=SENTENCES_PER_DOCUMENT)
        text = await stream_answer(ctx, state, "summarize", inputs, book)
    if not text:
        text = NOTHING_READY
        stream_text(text)
    return {
        "response": text,
        "citations": book.citations(),
        # A summary covers the whole document by construction: sampling, not similarity.
        "retrieval_confidence": "high" if book.used else "low",
        "confidence_score": round(mean_similarity(book.used), 4),
        "engine": ctx.llm.engine("summarize"),
    }
