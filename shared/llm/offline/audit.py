"""Offline audit (task `audit`): does a target document honour each requirement, or each
audited statement the rules it is checked against?

Deterministic clause matching: the requirement's best-matching target sentence is compared for
quantities (numbers with time/percent units, digits or words), modality (must/shall vs
may/should) and negation. No match at all is a coverage gap. Every finding quotes both sides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shared.llm.schemas import AuditFinding, AuditInputs, AuditOutput, Passage
from shared.text.audit_report import SEVERITY_ORDER
from shared.text.extracts import Extract, best_extracts
from shared.text.numbers import NUMBER_WORDS
from shared.text.requirements import OBLIGATION

_UNITS_IN_HOURS = {"hour": 1, "day": 24, "week": 168, "month": 730, "year": 8760}
_NUMBER = (
    r"(\d+(?:\.\d+)?|(?:"
    + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
    + r")(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?)"
)
_QUANTITY = re.compile(_NUMBER + r"\s*(?:\(\d+\)\s*)?(hours?|days?|weeks?|months?|years?|per\s?cent|%)", re.I)
_WEAK = re.compile(r"\b(may|should|can|recommended|optional|where (?:possible|feasible)|ideally)\b", re.I)
_NEGATION = re.compile(r"\b(not|never|no|prohibited|forbidden|without)\b", re.I)


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str

    @property
    def hours(self) -> float | None:
        return self.value * _UNITS_IN_HOURS[self.unit] if self.unit in _UNITS_IN_HOURS else None


def _number(text: str) -> float:
    text = text.lower().replace("-", " ")
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return float(text)
    return float(sum(NUMBER_WORDS.get(part, 0) for part in text.split()))


def quantities(sentence: str) -> list[Quantity]:
    out = []
    for match in _QUANTITY.finditer(sentence):
        unit = match.group(2).lower().replace(" ", "")
        unit = "percent" if unit in ("%", "percent") else unit.rstrip("s")
        out.append(Quantity(_number(match.group(1)), unit))
    return out


@dataclass(frozen=True)
class Check:
    severity: str
    issue: str
    consequence: str
    suggestion: str


_PROHIBITION = re.compile(
    r"\b(?:must not|shall not|may not|cannot|can not|is prohibited from|are prohibited from|never)\s+"
    r"(?:\w+ly\s+)?(\w+(?:\s+\w+){0,4})",
    re.I,
)
_FUNCTION_WORDS = frozenset(
    {"a", "an", "the", "any", "of", "to", "for", "in", "on", "with", "or", "and", "be", "been", "being", "is"}
    | {"are", "was", "were", "their", "its", "our", "your", "this", "that"}
)


def _stem(word: str) -> str:
    return word.lower()[:6]


def prohibited_terms(requirement: str) -> list[set[str]]:
    """For each prohibition in `requirement` ("must not promise guaranteed returns"), the stems of
    what it forbids, without its verb ({"guaran", "return"})."""
    out = []
    for match in _PROHIBITION.finditer(requirement):
        words = [w for w in re.findall(r"[a-z]+", match.group(1).lower()) if w not in _FUNCTION_WORDS]
        if len(words) >= 2:
            out.append({_stem(w) for w in words[1:]})
    return out


def breaks_prohibition(requirement: str, statement: str) -> bool:
    """Whether `statement` affirmatively says what `requirement` forbids."""
    if _NEGATION.search(statement):
        return False
    stems = {_stem(w) for w in re.findall(r"[a-z]+", statement.lower())}
    return any(terms <= stems for terms in prohibited_terms(requirement))


def check_clause(requirement: str, target: str | None, similarity: float, *, match_floor: float) -> Check | None:
    """The most serious problem with `target` as evidence for `requirement`, or None if it complies."""
    if target is None or similarity < match_floor:
        return Check(
            "High",
            "not addressed",
            "The document does not appear to cover this requirement, leaving a compliance gap.",
            "Add a provision that addresses this requirement explicitly.",
        )
    if breaks_prohibition(requirement, target):
        return Check(
            "Critical",
            "states what the requirement prohibits",
            "The text makes a statement the requirement expressly forbids, a direct breach.",
            "Remove or rewrite the statement so it no longer says what is prohibited.",
        )
    source_q = [(q, q.hours) for q in quantities(requirement) if q.hours is not None]
    target_q = [(q, q.hours) for q in quantities(target) if q.hours is not None]
    if source_q and target_q:
        (source, required), (stated_q, stated) = source_q[0], target_q[0]
        if stated > required:
            return Check(
                "Critical",
                "time limit exceeds the requirement",
                f"The document allows {stated_q.value:g} {stated_q.unit}(s) where the requirement sets "
                f"{source.value:g} {source.unit}(s).",
                "Align the time limit with the requirement.",
            )
        if stated < required:
            return Check(
                "Low",
                "stricter time limit than required",
                "The document is stricter than the requirement; this complies but may be costly to operate.",
                "Confirm the stricter limit is intended.",
            )
    if OBLIGATION.search(requirement) and _WEAK.search(target) and not OBLIGATION.search(target):
        return Check(
            "Medium",
            "weaker obligation",
            "The requirement is mandatory but the document states it as optional or advisory.",
            "Use mandatory wording (must/shall) for this obligation.",
        )
    if bool(_NEGATION.search(requirement)) != bool(_NEGATION.search(target)) and similarity >= match_floor + 0.15:
        return Check(
            "Medium",
            "possible contradiction (negation differs)",
            "One text permits what the other appears to prohibit, or the reverse.",
            "Review the wording of both provisions for a conflict.",
        )
    return None


THEME_CHARS = 80
RULES_CONSIDERED = 3


def _theme(requirement: str) -> str:
    return requirement if len(requirement) <= THEME_CHARS else requirement[: THEME_CHARS - 1] + "…"


async def _requirement_finding(
    inputs: AuditInputs, theme: str, passages: list[Passage]
) -> tuple[Check | None, Extract | None, float]:
    """A requirement against the target's best sentence: missing, contradicted, weakened…"""
    best = await best_extracts(theme, passages, k=1, floor=-1.0)
    extract = best[0] if best else None
    similarity = extract.similarity if extract else 0.0
    check = check_clause(theme, extract.sentence.text if extract else None, similarity, match_floor=inputs.match_floor)
    return check, extract if extract and similarity >= inputs.match_floor else None, similarity


async def _statement_finding(
    inputs: AuditInputs, theme: str, passages: list[Passage]
) -> tuple[Check | None, Extract | None, float]:
    """An audited statement against the target's closest rules; the most serious breach wins.
    A statement no rule speaks to is not a finding."""
    rules = await best_extracts(theme, passages, k=RULES_CONSIDERED, floor=inputs.match_floor)
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
