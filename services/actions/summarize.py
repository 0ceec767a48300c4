"""Summarize (docs/architecture.md §7.3): a stratified sample of each document, summarized with citations, plus
an optional web supplement.

One document gets one consolidated summary; several get a section each, so every statement
stays attributed to its source. Its retrieval confidence is the sample's: the share of sampled
passages that read as statements (services/actions/evidence.py); when that is low the user is asked
`retrieval_low` first, as inquire does (services/actions/palassist.py).
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Command

from services.actions import retrieve
from services.actions.citations import CitationBook, passages_of
from services.actions.compose import stream_answer
from services.actions.evidence import readable_share, sample_confidence
from services.actions.palassist import (
    CONTINUE_OPTION,
    DISCLAIMER,
    TAG_OPTION,
    WEB_OPTION,
    LowRetrievalChoice,
    ask_about_low_retrieval,
)
from services.actions.streaming import stream_text
from services.actions.web import WebSupplement, web_supplement
from shared.graph.context import StageContext
from shared.graph.state import AgentState, resolved_doc_ids
from shared.llm.schemas import AnswerInputs

SENTENCES_PER_DOCUMENT = 6
NOTHING_READY = "The selected documents have no ready text to summarize yet."
LOW_OPTIONS = [TAG_OPTION, WEB_OPTION, CONTINUE_OPTION]


async def summarize(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any] | Command:
    ctx = runtime.context
    documents = state.get("resolved_docs", [])
    chunks = await retrieve.sample(ctx, state, resolved_doc_ids(state))
    share = readable_share(chunks)
    choice = LowRetrievalChoice()
    if chunks and sample_confidence(share) == "low":
        asked = await ask_about_low_retrieval(ctx, state, LOW_OPTIONS, tagged=True)
        if isinstance(asked, Command):
            return asked
        choice = asked
        if choice.documents:  # the documents tagged when asked are summarized instead
            documents = choice.documents
            chunks = await retrieve.sample(ctx, state, [doc["id"] for doc in documents])
            share = readable_share(chunks)
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
    if state.get("enable_web_search") or choice.web_search:
        # What the web adds about the summarized documents' subject (e.g. later amendments).
        topic = state.get("clean_query") or ""
        web = await web_supplement(ctx, state, "summarize", topic, first_number=book.count + 1)
        if web.text:
            stream_text("\n\n" + web.text)
    return {
        "response": "\n\n".join(part for part in (text, web.text) if part),
        "citations": book.citations() + web.citations,
        "notices": [n for n in (web.notice, DISCLAIMER if choice.disclaimer else None) if n],
        "web_search_query": web.query,
        "retrieval_confidence": "low" if choice.disclaimer or not book.used else sample_confidence(share),
        "confidence_score": round(share, 4),
        "engine": ctx.llm.engine("summarize"),
        "resolved_docs": documents,
    }
