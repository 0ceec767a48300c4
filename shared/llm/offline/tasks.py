"""The offline engine's implementation of every task in MODEL_MAP, keyed by task name.

Each handler takes the task's typed inputs and returns its output: a pydantic model for
structured tasks, text (with `[n]` citations for answers) for generative ones.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pydantic import BaseModel

from shared.llm.offline import answers, language
from shared.llm.offline.audit import SEVERITY_ORDER, Check, check_clause
from shared.llm.offline.documents import resolve_documents
from shared.llm.offline.extractive import Extract
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

Handler = Callable[[BaseModel], Awaitable[BaseModel | str]]


async def intent(inputs: IntentInputs) -> IntentOutput:
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


def _theme(requirement: str) -> str:
    return requirement if len(requirement) <= THEME_CHARS else requirement[: THEME_CHARS - 1] + "…"


RULES_CONSIDERED = 3


async def _requirement_finding(
    inputs: AuditInputs, theme: str, passages: list
) -> tuple[Check | None, Extract | None, float]:
    """A requirement against the target's best sentence: missing, contradicted, weakened…"""
    best = await answers.best_extracts(theme, passages, k=1, floor=-1.0)
    extract = best[0] if best else None
    similarity = extract.similarity if extract else 0.0
    check = check_clause(theme, extract.sentence.text if extract else None, similarity, match_floor=inputs.match_floor)
    return check, extract if extract and similarity >= inputs.match_floor else None, similarity


async def _statement_finding(
    inputs: AuditInputs, theme: str, passages: list
) -> tuple[Check | None, Extract | None, float]:
    """An audited statement against the target's closest rules; the most serious breach wins.
    A statement no rule speaks to is not a finding."""
    rules = await answers.best_extracts(theme, passages, k=RULES_CONSIDERED, floor=inputs.match_floor)
    similarity = max((r.similarity for r in rules), default=0.0)
    checked = [(c, r) for r in rules if (c := check_clause(r.sentence.text, theme, r.similarity, match_floor=-1.0))]
    if not checked:
        return None, None, similarity
    check, rule = min(checked, key=lambda cr: SEVERITY_ORDER.index(cr[0].severity))
    return check, rule, similarity


async def audit(inputs: AuditInputs) -> AuditOutput:
    """Each theme against each target's passages, checked by the clause rules."""
    judge = _requirement_finding if inputs.themes_are == "requirements" else _statement_finding
    findings: list[AuditFinding] = []
    similarities: list[float] = []
    for target in inputs.targets:
        for theme, passages in zip(inputs.themes, target.evidence, strict=True):
            check, quoted, similarity = await judge(inputs, theme, passages)
            similarities.append(similarity)
            if check is None:
                continue
            findings.append(
                AuditFinding(
                    target_doc_id=target.document_id,
                    target_doc_title=target.document,
                    theme=_theme(theme),
                    severity=check.severity,
                    issue=check.issue,
                    consequence=check.consequence,
                    source_quote=theme,
                    target_quote=quoted.sentence.text if quoted else "",
                    suggestion=check.suggestion,
                    confidence_score=round(min(1.0, max(0.0, similarity)), 4),
                    passage=passages[quoted.sentence.chunk_index].n if quoted else None,
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
