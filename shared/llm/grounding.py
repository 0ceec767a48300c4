"""A model's structured answer checked against what it was given (docs/model-servers.md).

Schema-valid is not the same as true: a model can name a document id it was never shown, or
attribute an audit finding to a document that was not audited. Such answers are repaired where
the intent is clear (a title given where the id belongs) and the rest is dropped, so nothing a
model made up reaches the database, the graph state or the user. The offline engine's answers
pass through unchanged (they are built from the inputs).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel

from shared.llm import schemas

log = logging.getLogger(__name__)
# Grounding repairs a model answer into a model of the same type.
Out = TypeVar("Out", bound=BaseModel)


def _doc_resolution(inputs: schemas.DocResolutionInputs, out: schemas.DocResolutionOutput) -> BaseModel:
    titles = {id_: title for id_, title in inputs.library.items()}
    titles |= {id_: title for title, id_ in inputs.registry.items()}
    known = set(titles) | set(inputs.tagged)
    by_title = {title.casefold(): id_ for id_, title in titles.items()}

    def known_id(value: str) -> str | None:
        value = value.strip()
        return value if value in known else by_title.get(value.casefold())

    ids = list(dict.fromkeys(i for i in map(known_id, out.ids) if i))
    candidates: list[schemas.DocCandidate] = []
    for candidate in out.candidates:
        found = known_id(candidate.id) or known_id(candidate.title)
        if found and found not in ids and all(c.id != found for c in candidates):
            candidates.append(schemas.DocCandidate(id=found, title=titles.get(found, candidate.title)))
    dropped = len(out.ids) + len(out.candidates) - len(ids) - len(candidates)
    if not dropped:
        return out
    log.warning("doc_resolution: dropped %d document reference(s) to documents the user does not have", dropped)
    source = out.source if ids or candidates else "none"
    return out.model_copy(update={"ids": ids, "candidates": candidates, "source": source, "confidence": "low"})


def _audit(inputs: schemas.AuditInputs, out: schemas.AuditOutput) -> BaseModel:
    titles = {t.document_id: t.document for t in inputs.targets}
    by_title = {title.casefold(): id_ for id_, title in titles.items()}
    passages = {p.n for t in inputs.targets for evidence in t.evidence for p in evidence}
    findings = []
    for finding in out.findings:
        target = (
            finding.target_doc_id
            if finding.target_doc_id in titles
            else by_title.get(finding.target_doc_title.casefold())
        )
        if target is None:
            log.warning("audit: dropped a finding about a document that was not audited")
            continue
        passage = finding.passage if finding.passage in passages else None
        findings.append(
            finding.model_copy(update={"target_doc_id": target, "target_doc_title": titles[target], "passage": passage})
        )
    return out.model_copy(update={"findings": findings})


_CHECKS: dict[str, Callable[..., BaseModel]] = {
    "doc_resolution": _doc_resolution,
    "audit": _audit,
}


def grounded(task: str, inputs: BaseModel, output: Out) -> Out:
    """`output` with whatever does not refer to `inputs` repaired or removed (a model of the same type)."""
    check = _CHECKS.get(task)
    if check is None:
        return output
    repaired = check(inputs, output)
    if not isinstance(repaired, type(output)):
        raise TypeError(f"the {task} check returned {type(repaired).__name__}, not {type(output).__name__}")
    return repaired
