"""Audit (SPEC §7.5): check target documents against requirements, with structured findings.

Text mode: the requirement sentences of the request are the source. Policy mode: a tagged
company policy is the source; its central sentences (from a stratified sample) become the
requirements and the other tagged documents are the targets. Each requirement is searched in
each target; the best sentence is checked by the offline clause rules.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from services.actions import retrieve
from services.actions.evidence import CitationBook, best_extracts, central_extracts, tier
from services.actions.streaming import stream_text
from shared.graph.context import StageContext
from shared.graph.state import AgentState
from shared.llm import OFFLINE_ENGINE
from shared.llm.offline.audit import check_clause, overall_status, render, requirement_sentences

POLICY_THEMES = 5
THEME_CHARS = 80


def split_roles(state: AgentState) -> tuple[list[str], str | None, list[tuple[str, str]]]:
    """(requirements from text, source policy id or None, targets as (id, title))."""
    docs = list(zip(state.get("resolved_doc_ids", []), state.get("resolved_doc_titles", []), strict=False))
    types = state.get("resolved_doc_types", [])
    requirements = requirement_sentences(state.get("clean_query") or state.get("query", ""))
    if requirements or len(docs) < 2:
        return requirements, None, docs
    source = next((i for i, t in enumerate(types) if t == "company_policy"), None)
    if source is None:
        return requirements, None, docs
    return [], docs[source][0], [d for i, d in enumerate(docs) if i != source]


async def policy_requirements(ctx: StageContext, state: AgentState, source_id: str) -> list[str]:
    chunks = await retrieve.sample(ctx, state, [source_id])
    extracts = await central_extracts(chunks, list(range(len(chunks))), k=POLICY_THEMES)
    return [e.sentence.text for e in extracts]


async def audit(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any]:
    ctx = runtime.context
    requirements, source_id, targets = split_roles(state)
    if source_id:
        requirements = await policy_requirements(ctx, state, source_id)
    book = CitationBook([])
    findings: list[dict[str, Any]] = []
    similarities: list[float] = []
    for target_id, target_title in targets:
        for requirement in requirements:
            hits = await retrieve.search(
                ctx, state, requirement, [target_id], per_doc_k=3, total_k=3, min_similarity=-1.0
            )
            offset = len(book.chunks)
            book.chunks.extend(hits)
            best = await best_extracts(
                requirement, book.chunks, k=1, floor=-1.0, indices=list(range(offset, len(book.chunks)))
            )
            sentence = best[0].sentence if best else None
            similarity = best[0].similarity if best else 0.0
            similarities.append(similarity)
            check = check_clause(
                requirement, sentence.text if sentence else None, similarity, match_floor=ctx.settings.confidence_medium
            )
            if check is None:
                continue
            matched = sentence is not None and similarity >= ctx.settings.confidence_medium
            cite = f"[{book.cite(book.chunks[sentence.chunk_index], sentence.text)}]" if matched else ""
            findings.append(
                {
                    "target_doc_id": target_id,
                    "target_doc_title": target_title,
                    "theme": requirement if len(requirement) <= THEME_CHARS else requirement[: THEME_CHARS - 1] + "…",
                    "severity": check.severity,
                    "issue": check.issue,
                    "consequence": check.consequence,
                    "source_quote": requirement,
                    "target_quote": sentence.text if cite else "",
                    "suggestion": check.suggestion,
                    "confidence_score": round(similarity, 4),
                    "cite": cite,
                }
            )
    status = overall_status(findings)
    report = {
        "overall_status": status,
        "findings": findings,
        "summary": f"Checked {len(requirements)} requirement(s) against {len(targets)} document(s): "
        f"{len(findings)} finding(s).",
        "targets_checked": [{"id": t_id, "title": title} for t_id, title in targets],
        "themes_analyzed": requirements,
    }
    text = render(report)
    for finding in findings:
        finding.pop("cite")  # a rendering detail; citations carry the numbers
    stream_text(text)
    score = sum(similarities) / len(similarities) if similarities else 0.0
    return {
        "response": text,
        "citations": book.citations(),
        "findings": report,
        "retrieval_confidence": tier(score, ctx.settings),
        "confidence_score": round(score, 4),
        "engine": OFFLINE_ENGINE,
    }
