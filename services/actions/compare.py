"""Compare (docs/architecture.md §7.3): what each document says, side by side, never with web search.

Focused (the request names a topic): a balanced search in each document for the topic and a
comparison on it. Holistic (no topic): a stratified sample of each document, compared as a
whole on the large model. Both keep every statement cited to its document.
"""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime

from services.actions import retrieve
from services.actions.citations import CitationBook, passages_of
from services.actions.compose import stream_answer
from services.actions.evidence import best_sentence_similarity, confidence, mean_similarity
from shared.contracts import SearchRequest
from shared.graph.context import StageContext
from shared.graph.state import AgentState, resolved_doc_ids, resolved_docs
from shared.llm.schemas import AnswerInputs

SENTENCES_PER_DOCUMENT = 3
_FILLER = re.compile(
    r"\b(compare|comparison|contrast|differences?|similarit(?:y|ies)|between|versus|vs\.?|and|the|these|those|"
    r"documents?|policies|policy|please|can|you|how|do|does|what|are|is|of|with|to|them|both)\b",
    re.I,
)


def focus_topic(query: str, titles: list[str]) -> str:
    """The topic words of a compare request, or '' when it asks for a general comparison."""
    text = query
    for title in titles:
        text = text.replace(title, " ").replace(title.rsplit(" (", 1)[0], " ")
    words = _FILLER.sub(" ", re.sub(r"[^\w\s-]", " ", text)).split()
    return " ".join(words)


SEARCH_TOTAL_K = SearchRequest.model_fields["total_k"].metadata[-1].le


async def compare(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any]:
    ctx = runtime.context
    query = state.get("clean_query") or state.get("query", "")
    topic = focus_topic(query, [doc.title for doc in resolved_docs(state)])
    doc_ids = resolved_doc_ids(state)
    if topic:
        k = ctx.settings.per_doc_k
        # Per-document balanced search: every document contributes its own best passages.
        # A tagged set may bring many documents; one search returns at most SEARCH_TOTAL_K passages.
        total = min(k * len(doc_ids), SEARCH_TOTAL_K)
        chunks = await retrieve.search(ctx, state, topic, doc_ids, per_doc_k=k, total_k=total, min_similarity=-1.0)
    else:
        chunks = await retrieve.sample(ctx, state, doc_ids)
    task = "compare_focused" if topic else "compare_holistic"
    book = CitationBook(chunks)
    inputs = AnswerInputs(query=query, passages=passages_of(chunks), focus=topic, sentences=SENTENCES_PER_DOCUMENT)
    text = await stream_answer(ctx, state, task, inputs, book)
    score = mean_similarity(book.used)
    # The same honest tier as inquire's: chunk similarity, lifted when one sentence answers the topic.
    sentence = await best_sentence_similarity(topic, book.used) if topic and book.used else 0.0
    return {
        "response": text,
        "citations": book.citations(),
        "retrieval_confidence": confidence(score, sentence, ctx.settings) if topic else "high",
        "confidence_score": round(score, 4),
        "engine": ctx.llm.engine(task),
    }
