"""Summarize (SPEC §7.5): a stratified sample of each document, its most central sentences, cited.

One document gets one consolidated summary; several get a section each, so every statement
stays attributed to its source.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from services.actions import retrieve
from services.actions.evidence import CitationBook, central_extracts, mean_similarity
from services.actions.streaming import stream_text
from shared.graph.context import StageContext
from shared.graph.state import AgentState
from shared.llm import OFFLINE_ENGINE

SENTENCES_PER_DOCUMENT = 6


async def summarize(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any]:
    ctx = runtime.context
    chunks = await retrieve.sample(ctx, state, state["resolved_doc_ids"])
    book = CitationBook(chunks)
    sections: list[str] = []
    for doc_id in dict.fromkeys(str(c.document_id) for c in chunks):
        indices = [i for i, c in enumerate(chunks) if str(c.document_id) == doc_id]
        extracts = await central_extracts(chunks, indices, k=SENTENCES_PER_DOCUMENT)
        body = book.cited_text(extracts)
        first = chunks[indices[0]]
        title = f"{first.title} ({first.version})"
        sections.append(body if len(state["resolved_doc_ids"]) == 1 else f"**{title}**\n\n{body}")
    text = "\n\n".join(sections) if sections else "The selected documents have no ready text to summarize yet."
    stream_text(text)
    return {
        "response": text,
        "citations": book.citations(),
        # A summary covers the whole document by construction: sampling, not similarity.
        "retrieval_confidence": "high" if sections else "low",
        "confidence_score": round(mean_similarity(book.used), 4),
        "engine": OFFLINE_ENGINE,
    }
