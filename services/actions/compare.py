"""Compare (SPEC §7.5): what each document says, side by side, never with web search.

Focused (the request names a topic): a targeted search in each document and the sentences
that answer it, per document. Holistic (no topic): each document's most central sentences
from a stratified sample. Both keep every statement cited to its document.
"""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime

from services.actions import retrieve
from services.actions.evidence import CitationBook, best_extracts, central_extracts, mean_similarity, tier
from services.actions.streaming import stream_text
from shared.graph.context import StageContext
from shared.graph.state import AgentState
from shared.llm import OFFLINE_ENGINE

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


async def compare(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any]:
    ctx = runtime.context
    topic = focus_topic(state.get("clean_query") or state.get("query", ""), state.get("resolved_doc_titles", []))
    doc_ids = state["resolved_doc_ids"]
    if topic:
        k = ctx.settings.per_doc_k
        # Per-document balanced search: every document contributes its own best passages.
        chunks = await retrieve.search(
            ctx, state, topic, doc_ids, per_doc_k=k, total_k=k * len(doc_ids), min_similarity=-1.0
        )
    else:
        chunks = await retrieve.sample(ctx, state, doc_ids)
    book = CitationBook(chunks)
    sections = []
    for doc_id in dict.fromkeys(str(c.document_id) for c in chunks):
        indices = [i for i, c in enumerate(chunks) if str(c.document_id) == doc_id]
        if topic:
            extracts = await best_extracts(topic, chunks, k=SENTENCES_PER_DOCUMENT, floor=-1.0, indices=indices)
        else:
            extracts = await central_extracts(chunks, indices, k=SENTENCES_PER_DOCUMENT)
        first = chunks[indices[0]]
        sections.append(
            f"**{first.title} ({first.version})**\n\n{book.cited_text(extracts) or 'Nothing on this topic.'}"
        )
    heading = f"How the documents address “{topic}”:" if topic else "What each document is mainly about:"
    text = "\n\n".join([heading, *sections])
    stream_text(text)
    score = mean_similarity(book.used)
    return {
        "response": text,
        "citations": book.citations(),
        "retrieval_confidence": tier(score, ctx.settings) if topic else "high",
        "confidence_score": round(score, 4),
        "engine": OFFLINE_ENGINE,
    }
