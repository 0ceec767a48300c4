"""A fifth action that exists only in tests: `define` finds what the tagged documents say a term
means. It is written the way a real action is (docs/where-things-go.md, "A new action"): a
record and a node, nothing else, to show that nothing else has to change."""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime

from services.actions import retrieve
from services.actions.citations import CitationBook, passages_of
from services.actions.compose import stream_answer
from services.actions.evidence import evidence_strength, mean_similarity, tier
from shared.actions import ActionSpec, ActionTask
from shared.graph.context import StageContext
from shared.graph.state import AgentState, resolved_doc_ids
from shared.llm.schemas import AnswerInputs

DEFINE = ActionSpec(
    name="define",
    label="Define",
    choice_label="Define a term",
    hint="What the documents say a term means",
    status="Looking up the definition...",
    intent_description="define (what the documents say a term means)",
    node="tests.integration.define_action:define",
    tasks=(
        ActionTask(
            "define",
            "small",
            0.0,
            512,
            "Writing the definition",
            "State what the passages say the term means, citing [n].",
            # The offline engine answers it the way it answers a question.
            offline="inquire",
        ),
    ),
    documents_needed=1,
    missing_docs="Please tag the document whose definition you want.",
    web_allowed=False,
    intent_pattern=re.compile(r"\b(defin(?:e|es|ed|ition)|meaning of)\b", re.I),
    mention_words=frozenset({"define"}),
    colour="#6b4fbb",
)


async def define(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any]:
    ctx = runtime.context
    query = state.get("clean_query") or state.get("query", "")
    chunks = await retrieve.search(ctx, state, query, resolved_doc_ids(state))
    book = CitationBook(chunks)
    inputs = AnswerInputs(query=query, passages=passages_of(chunks), sentences=2)
    text = await stream_answer(ctx, state, "define", inputs, book)
    return {
        "response": text,
        "citations": book.citations(),
        "retrieval_confidence": tier(evidence_strength(chunks), ctx.settings),
        "confidence_score": round(mean_similarity(book.used), 4),
        "engine": ctx.llm.engine("define"),
    }
