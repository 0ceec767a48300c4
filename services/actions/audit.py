"""Audit (docs/architecture.md §7.3): check a text or a policy against rules, with structured findings.

Text mode: the sentences pasted in the request are either the rules a tagged document is
audited against ("Audit @Policy against this: …", or no regulation tagged), or the text being
audited against tagged regulations ("Audit this email against @Regulation: …"). Policy mode: a
tagged company policy is audited against the other tagged documents; its central sentences
(from a stratified sample) are its themes. Each theme is searched in each target document and the
model (on the offline engine: clause rules over the best sentence) reports the problems as
structured findings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from langgraph.runtime import Runtime

from services.actions import retrieve
from services.actions.citations import CitationBook, passages_of
from services.actions.evidence import tier
from services.actions.profile import user_profile
from services.actions.streaming import stream_text
from shared.contracts import ChunkHit, ResolvedDoc
from shared.graph.context import StageContext
from shared.graph.state import AgentState, resolved_docs
from shared.llm import CallScope, build_prompt
from shared.llm.schemas import AuditInputs, AuditOutput, AuditTarget
from shared.text.audit_report import overall_status, render
from shared.text.extracts import central_extracts
from shared.text.requirements import requirement_sentences

POLICY_THEMES = 5
THEME_NOUN = {"requirements": "requirement(s)", "statements": "statement(s)"}


_AGAINST_PASTED = re.compile(r"\bagainst (?:this|these|the following)\b", re.I)


@dataclass(frozen=True)
class AuditPlan:
    """Who is checked against what (docs/architecture.md §7.3, text mode and policy mode:
    the audited text's statements against the rules of regulatory documents)."""

    themes: list[str]
    themes_are: Literal["requirements", "statements"]
    source_id: str | None  # a tagged policy whose central sentences become the statements
    targets: list[ResolvedDoc]  # the documents searched


def plan_audit(state: AgentState) -> AuditPlan:
    text = state.get("clean_query") or state.get("query", "")
    docs = resolved_docs(state)
    types = [doc.doc_type for doc in docs]
    pasted = requirement_sentences(text)
    if pasted:
        # "Audit @Policy against this: <rules>" checks the document; "Audit this email against
        # @Regulation: <email>" checks the pasted text against the regulation.
        rules_pasted = _AGAINST_PASTED.search(text) or "regulatory_source" not in types
        return AuditPlan(pasted, "requirements" if rules_pasted else "statements", None, docs)
    source = next((i for i, t in enumerate(types) if t == "company_policy"), None)
    if source is None or len(docs) < 2:
        return AuditPlan([], "requirements", None, docs)
    return AuditPlan([], "statements", str(docs[source].id), [d for i, d in enumerate(docs) if i != source])


async def policy_statements(ctx: StageContext, state: AgentState, source_id: str) -> list[str]:
    """The policy's most central sentences (by embedding centroid, over a stratified sample): its themes."""
    chunks = await retrieve.sample(ctx, state, [source_id])
    extracts = await central_extracts(passages_of(chunks), k=POLICY_THEMES)
    return [e.sentence.text for e in extracts]


async def gather_evidence(
    ctx: StageContext, state: AgentState, themes: list[str], targets: list[ResolvedDoc]
) -> tuple[list[ChunkHit], list[AuditTarget]]:
    """Each theme searched in each target; passages numbered across the whole audit."""
    chunks: list[ChunkHit] = []
    audit_targets = []
    for target in targets:
        target_id = str(target.id)
        evidence = []
        for theme in themes:
            hits = await retrieve.search(ctx, state, theme, [target_id], per_doc_k=3, total_k=3, min_similarity=-1.0)
            offset = len(chunks)
            chunks.extend(hits)
            evidence.append(passages_of(hits, first=offset + 1))
        audit_targets.append(AuditTarget(document_id=target_id, document=target.title, evidence=evidence))
    return chunks, audit_targets


def summary(checked: int, unchecked: int, themes_are: str, targets: int, findings: int) -> str:
    """What the audit covered, in numbers: how many were checked, and how many were not."""
    noun = THEME_NOUN[themes_are]
    text = f"Checked {checked} {noun} against {targets} document(s): {findings} finding(s)."
    if unchecked:
        text += f" {unchecked} further {noun} were not checked (one audit checks at most {checked}); listed below."
    return text


async def audit(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any]:
    ctx = runtime.context
    plan = plan_audit(state)
    every = await policy_statements(ctx, state, plan.source_id) if plan.source_id else plan.themes
    # Every requirement is checked up to the limit (each costs a search per target and a share of the
    # model's context); the ones past it are named in the report, never dropped silently.
    themes, unchecked = every[: ctx.settings.audit_max_requirements], every[ctx.settings.audit_max_requirements :]
    targets = plan.targets
    chunks, audit_targets = await gather_evidence(ctx, state, themes, targets)
    book = CitationBook(chunks)
    output = AuditOutput(findings=[])
    if themes and audit_targets:
        inputs = AuditInputs(
            themes=themes,
            themes_are=plan.themes_are,
            targets=audit_targets,
            match_floor=ctx.settings.similarity.confidence_medium,
            profile=await user_profile(ctx, state),
        )
        output = await ctx.llm.structured(
            "audit", AuditOutput, build_prompt("audit", inputs), scope=CallScope.of(state)
        )
    findings: list[dict[str, Any]] = []
    for finding in output.findings:
        row = finding.model_dump(exclude={"passage"})
        passage = finding.passage
        valid = passage is not None and 1 <= passage <= len(chunks) and finding.target_quote
        row["cite"] = f"[{book.cite(passage, finding.target_quote)}]" if passage is not None and valid else ""
        findings.append(row)
    report = {
        "overall_status": overall_status(findings),
        "findings": findings,
        "summary": summary(len(themes), len(unchecked), plan.themes_are, len(targets), len(findings)),
        "targets_checked": [target.model_dump(mode="json", include={"id", "title"}) for target in targets],
        "themes_analyzed": themes,
        "themes_not_checked": unchecked,
    }
    text = render(report, themes_are=plan.themes_are)
    for row in findings:
        row.pop("cite")  # a rendering detail; citations carry the numbers
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
