"""Audit (SPEC §7.5): check target documents against requirements, with structured findings.

Text mode: the requirement sentences of the request are the source. Policy mode: a tagged
company policy is the source; its central sentences (from a stratified sample) become the
requirements and the other tagged documents are the targets. Each requirement is searched in
each target and the model (on the offline engine: clause rules over the best sentence) reports
the problems as structured findings.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from services.actions import retrieve
from services.actions.citations import CitationBook, passages_of
from services.actions.evidence import tier
from services.actions.streaming import stream_text
from shared.contracts import ChunkHit
from shared.graph.context import StageContext
from shared.graph.state import AgentState
from shared.llm import CallScope, build_prompt
from shared.llm.offline.answers import central_extracts
from shared.llm.offline.audit import overall_status, render, requirement_sentences
from shared.llm.schemas import AuditInputs, AuditOutput, AuditTarget

POLICY_THEMES = 5


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
    """The policy's most central sentences (by embedding centroid) become the requirements to check."""
    chunks = await retrieve.sample(ctx, state, [source_id])
    extracts = await central_extracts(passages_of(chunks), k=POLICY_THEMES)
    return [e.sentence.text for e in extracts]


async def gather_evidence(
    ctx: StageContext, state: AgentState, requirements: list[str], targets: list[tuple[str, str]]
) -> tuple[list[ChunkHit], list[AuditTarget]]:
    """Each requirement searched in each target; passages numbered across the whole audit."""
    chunks: list[ChunkHit] = []
    audit_targets = []
    for target_id, target_title in targets:
        evidence = []
        for requirement in requirements:
            hits = await retrieve.search(
                ctx, state, requirement, [target_id], per_doc_k=3, total_k=3, min_similarity=-1.0
            )
            offset = len(chunks)
            chunks.extend(hits)
            evidence.append(passages_of(hits, first=offset + 1))
        audit_targets.append(AuditTarget(document_id=target_id, document=target_title, evidence=evidence))
    return chunks, audit_targets


async def audit(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any]:
    ctx = runtime.context
    requirements, source_id, targets = split_roles(state)
    if source_id:
        requirements = await policy_requirements(ctx, state, source_id)
    chunks, audit_targets = await gather_evidence(ctx, state, requirements, targets)
    book = CitationBook(chunks)
    output = AuditOutput(findings=[])
    if requirements and audit_targets:
        inputs = AuditInputs(
            requirements=requirements, targets=audit_targets, match_floor=ctx.settings.confidence_medium
        )
        output = await ctx.llm.structured(
            "audit", AuditOutput, build_prompt("audit", inputs), scope=CallScope.of(state)
        )
    findings = []
    for finding in output.findings:
        row = finding.model_dump(exclude={"passage"})
        valid = finding.passage is not None and 1 <= finding.passage <= len(chunks) and finding.target_quote
        row["cite"] = f"[{book.cite(finding.passage, finding.target_quote)}]" if valid else ""
        findings.append(row)
    report = {
        "overall_status": overall_status(findings),
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
    score = sum(output.similarities) / len(output.similarities) if output.similarities else 0.0
    return {
        "response": text,
        "citations": book.citations(),
        "findings": report,
        "retrieval_confidence": tier(score, ctx.settings),
        "confidence_score": round(score, 4),
        "engine": ctx.llm.engine("audit"),
    }
