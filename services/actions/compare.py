"""Compare (docs/architecture.md §7.3): what each document says, side by side, never with web search.

Focused (the request names a topic): a balanced search in each document for the topic and a
comparison on it. Holistic (no topic): a stratified sample of each document, compared as a
whole on the large model. Both keep every statement cited to its document, and both report their
retrieval confidence honestly (the topic's evidence, or the sample's readable share); when it is low
the user is asked `retrieval_low` first, as inquire does (services/actions/palassist.py).
"""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Command

from services.actions import retrieve
from services.actions.citations import CitationBook, passages_of
from services.actions.compose import stream_answer
from services.actions.evidence import (
    SentenceEvidence,
    above_floor,
    confidence,
    evidence_strength,
    mean_similarity,
    readable_share,
    sample_confidence,
    sentence_evidence,
)
from services.actions.palassist import (
    CONTINUE_OPTION,
    DISCLAIMER,
    TAG_OPTION,
    LowRetrievalChoice,
    ask_about_low_retrieval,
)
from shared.contracts import ChunkHit, Confidence, SearchRequest
from shared.graph.context import StageContext
from shared.graph.state import AgentState, resolved_doc_ids, resolved_docs
from shared.llm.schemas import AnswerInputs

SENTENCES_PER_DOCUMENT = 3
_FILLER = re.compile(
    r"\b(compare|comparison|contrast|differences?|similarit(?:y|ies)|between|versus|vs\.?|and|the|these|those|"
    r"documents?|docs?|files?|policies|policy|please|can|you|how|do|does|what|are|is|of|with|to|them|both|all|two|three|four|five)\b",
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
# Compare never searches the web (feature spec), so a weak retrieval offers other documents or a disclaimer.
LOW_OPTIONS = [TAG_OPTION, CONTINUE_OPTION]


async def gather(
    ctx: StageContext, state: AgentState, topic: str, doc_ids: list[str]
) -> tuple[list[ChunkHit], Confidence]:
    """The passages compared and how well they bear on the comparison."""
    if not topic:
        chunks = await retrieve.sample(ctx, state, doc_ids)
        return chunks, sample_confidence(readable_share(chunks))
    k = ctx.settings.per_doc_k
    # Per-document balanced search: every document contributes its own best passages.
    # A tagged set may bring many documents; one search returns at most SEARCH_TOTAL_K passages.
    total = min(k * len(doc_ids), SEARCH_TOTAL_K)
    chunks = await retrieve.search(ctx, state, topic, doc_ids, per_doc_k=k, total_k=total, min_similarity=-1.0)
    sentence = await answering_sentence(topic, chunks)
    return chunks, confidence(evidence_strength(above_floor(chunks, ctx.settings)), sentence, ctx.settings)


async def answering_sentence(topic: str, chunks: list[ChunkHit]) -> SentenceEvidence:
    """Only the lift of a sentence that answers: the check that some sentence is about the question
    was calibrated on questions, and a comparison's topic is a phrase."""
    return SentenceEvidence(answers=(await sentence_evidence(topic, chunks)).answers) if chunks else SentenceEvidence()


def compared_documents(current: list[dict[str, str]], picked: list[dict[str, str]]) -> list[dict[str, str]]:
    """The documents tagged when asked replace the compared ones; one alone joins them (a comparison needs two)."""
    if len(picked) >= 2:
        return picked
    return [*current, *(doc for doc in picked if doc["id"] not in {d["id"] for d in current})]


async def compare(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any] | Command:
    ctx = runtime.context
    query = state.get("clean_query") or state.get("query", "")
    documents = state.get("resolved_docs", [])
    topic = focus_topic(query, [doc.title for doc in resolved_docs(state)])
    chunks, found = await gather(ctx, state, topic, resolved_doc_ids(state))
    choice = LowRetrievalChoice()
    if chunks and found == "low":
        asked = await ask_about_low_retrieval(ctx, state, LOW_OPTIONS, tagged=True)
        if isinstance(asked, Command):
            return asked
        choice = asked
        if choice.documents:
            documents = compared_documents(documents, choice.documents)
            chunks, found = await gather(ctx, state, topic, [doc["id"] for doc in documents])
    task = "compare_focused" if topic else "compare_holistic"
    book = CitationBook(chunks)
    inputs = AnswerInputs(query=query, passages=passages_of(chunks), focus=topic, sentences=SENTENCES_PER_DOCUMENT)
    text = await stream_answer(ctx, state, task, inputs, book)
    score = mean_similarity(book.used)
    # The same honest tier as inquire's: chunk similarity, lifted when one sentence answers the topic.
    sentence = await answering_sentence(topic, book.used) if topic else SentenceEvidence()
    reported = confidence(score, sentence, ctx.settings) if topic else found
    return {
        "response": text,
        "citations": book.citations(),
        "retrieval_confidence": "low" if choice.disclaimer or not book.used else reported,
        "confidence_score": round(score if topic else readable_share(chunks), 4),
        "engine": ctx.llm.engine(task),
        "notices": [DISCLAIMER] if choice.disclaimer else [],
        "resolved_docs": documents,
    }
