"""The offline engine's implementation of every task in MODEL_MAP, keyed by task name.

Each handler takes the task's typed inputs and returns its output: a pydantic model for
structured tasks, text (with `[n]` citations for answers) for generative ones.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from pydantic import BaseModel

from shared.actions import Derived
from shared.llm.offline import answers, audit, intent_model, language
from shared.llm.offline.documents.resolve import resolve_documents
from shared.llm.offline.intent import classify_intent
from shared.llm.schemas import (
    ContextualizeInputs,
    ConversationSummaryInputs,
    DocCandidate,
    DocResolutionInputs,
    DocResolutionOutput,
    GradeInputs,
    GradeOutput,
    IntentInputs,
    IntentOutput,
    RewriteInputs,
    RewriteOutput,
    TextOutput,
    TitleInputs,
)

# Each handler takes its own task's inputs model; the task name picks the handler, so the parameter is Any.
Handler = Callable[[Any], Awaitable[BaseModel | str]]


async def intent(inputs: IntentInputs) -> IntentOutput:
    await intent_model.prepared()
    result = classify_intent(inputs.message, history=inputs.history or None)
    return IntentOutput(actions=list(result.actions), confidence=result.confidence, web_search=result.web_search)


async def doc_resolution(inputs: DocResolutionInputs) -> DocResolutionOutput:
    match = resolve_documents(
        inputs.clean_query or inputs.message,
        inputs.registry,
        inputs.library,
        strict=inputs.strict,
        action=inputs.action,
        tagged=inputs.tagged,
        doc_types=inputs.doc_types,
    )
    return DocResolutionOutput(
        ids=match.ids,
        candidates=[DocCandidate(id=i, title=t) for i, t in match.candidates],
        unresolved=match.unresolved,
        source=match.source,
        confidence=match.confidence,
    )


async def query_rewrite(inputs: RewriteInputs) -> RewriteOutput:
    return RewriteOutput(query=language.rewrite_query(inputs))


async def contextualize(inputs: ContextualizeInputs) -> TextOutput:
    return TextOutput(text=language.contextualize(inputs))


async def title(inputs: TitleInputs) -> TextOutput:
    return TextOutput(text=language.title(inputs.message))


async def conversation_summary(inputs: ConversationSummaryInputs) -> TextOutput:
    return TextOutput(text=language.conversation_summary(inputs) or "(no earlier requests)")


async def grade_confidence(inputs: GradeInputs) -> GradeOutput:
    return GradeOutput(score=language.grade_confidence(inputs, reference=inputs.high_similarity))


# The engine's answers that actions' tasks name in their records (ActionTask.offline_handler).
ANSWERS: dict[str, Handler] = {
    "inquire": answers.inquire,
    "summarize": answers.summarize,
    "compare_focused": answers.compare_focused,
    "compare_holistic": answers.compare_holistic,
    "audit": audit.audit,
}
HANDLERS: Mapping[str, Handler] = Derived(
    {
        "intent": intent,
        "doc_resolution": doc_resolution,
        "query_rewrite": query_rewrite,
        "contextualize": contextualize,
        "title": title,
        "conversation_summary": conversation_summary,
        "grade_confidence": grade_confidence,
    },
    lambda task: ANSWERS[task.offline_handler],
)
