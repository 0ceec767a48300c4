"""The offline engine's implementation of every task in MODEL_MAP, keyed by task name.

Each handler takes the task's typed inputs and returns its output: a pydantic model for
structured tasks, text (with `[n]` citations for answers) for generative ones.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pydantic import BaseModel

from shared.llm.offline import answers, language
from shared.llm.offline.audit import check_clause
from shared.llm.offline.documents import resolve_documents
from shared.llm.offline.intent import classify_intent
from shared.llm.schemas import (
    AuditFinding,
    AuditInputs,
    AuditOutput,
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

THEME_CHARS = 80
GRADE_REFERENCE = 0.55

Handler = Callable[[BaseModel], Awaitable[BaseModel | str]]


async def intent(inputs: IntentInputs) -> IntentOutput:
    """First pass on the message alone; with history, a follow-up without an action word continues
    the action of the most recent earlier message that had one clear action (§7.2 second pass)."""
    result = classify_intent(inputs.message)
    if inputs.history and result.confidence == "medium":
        for earlier in reversed(inputs.history):
            previous = classify_intent(earlier)
            if previous.confidence == "high" and len(previous.actions) == 1:
                return IntentOutput(actions=list(previous.actions), confidence="medium", web_search=result.web_search)
    return IntentOutput(actions=list(result.actions), confidence=result.confidence, web_search=result.web_search)


async def doc_resolution(inputs: DocResolutionInputs) -> DocResolutionOutput:
    match = resolve_documents(inputs.message, inputs.registry, inputs.library, strict=inputs.strict)
    return DocResolutionOutput(
        ids=match.ids,
        candidates=[DocCandidate(id=i, title=t) for i, t in match.candidates],
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
    return GradeOutput(score=language.grade_confidence(inputs, reference=GRADE_REFERENCE))


def _theme(requirement: str) -> str:
    return requirement if len(requirement) <= THEME_CHARS else requirement[: THEME_CHARS - 1] + "…"


async def audit(inputs: AuditInputs) -> AuditOutput:
    """Each requirement against each target's best sentence, checked by the clause rules."""
    findings: list[AuditFinding] = []
    similarities: list[float] = []
    for target in inputs.targets:
        for requirement, passages in zip(inputs.requirements, target.evidence, strict=True):
            best = await answers.best_extracts(requirement, passages, k=1, floor=-1.0)
            sentence = best[0].sentence if best else None
            similarity = best[0].similarity if best else 0.0
            similarities.append(similarity)
            check = check_clause(
                requirement, sentence.text if sentence else None, similarity, match_floor=inputs.match_floor
            )
            if check is None:
                continue
            matched = sentence is not None and similarity >= inputs.match_floor
            findings.append(
                AuditFinding(
                    target_doc_id=target.document_id,
                    target_doc_title=target.document,
                    theme=_theme(requirement),
                    severity=check.severity,
                    issue=check.issue,
                    consequence=check.consequence,
                    source_quote=requirement,
                    target_quote=sentence.text if matched else "",
                    suggestion=check.suggestion,
                    confidence_score=round(min(1.0, max(0.0, similarity)), 4),
                    passage=passages[sentence.chunk_index].n if matched else None,
                )
            )
    return AuditOutput(findings=findings, similarities=similarities)


HANDLERS: dict[str, Handler] = {
    "intent": intent,
    "doc_resolution": doc_resolution,
    "query_rewrite": query_rewrite,
    "contextualize": contextualize,
    "title": title,
    "conversation_summary": conversation_summary,
    "grade_confidence": grade_confidence,
    "inquire": answers.inquire,
    "summarize": answers.summarize,
    "compare_focused": answers.compare_focused,
    "compare_holistic": answers.compare_holistic,
    "audit": audit,
}
