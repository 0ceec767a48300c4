"""Offline audit checks: does a target sentence honour a source requirement?

Deterministic clause matching: the requirement's best-matching target sentence is compared for
quantities (numbers with time/percent units, digits or words), modality (must/shall vs
may/should) and negation. No match at all is a coverage gap. Every finding quotes both sides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from shared.llm.offline.extractive import split_sentences

SEVERITY_ORDER = ("Critical", "High", "Medium", "Low")

_UNITS_IN_HOURS = {"hour": 1, "day": 24, "week": 168, "month": 730, "year": 8760}
_SMALL = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
}
_NUMBER = (
    r"(\d+(?:\.\d+)?|(?:"
    + "|".join(sorted(_SMALL, key=len, reverse=True))
    + r")(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?)"
)
_QUANTITY = re.compile(_NUMBER + r"\s*(?:\(\d+\)\s*)?(hours?|days?|weeks?|months?|years?|per\s?cent|%)", re.I)
_STRONG = re.compile(r"\b(must|shall|required|mandatory|is obliged|are obliged|will)\b", re.I)
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
    return float(sum(_SMALL.get(part, 0) for part in text.split()))


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
    source_q = [q for q in quantities(requirement) if q.hours is not None]
    target_q = [q for q in quantities(target) if q.hours is not None]
    if source_q and target_q:
        required, stated = source_q[0].hours, target_q[0].hours
        if stated > required:
            return Check(
                "Critical",
                "time limit exceeds the requirement",
                f"The document allows {target_q[0].value:g} {target_q[0].unit}(s) where the requirement sets "
                f"{source_q[0].value:g} {source_q[0].unit}(s).",
                "Align the time limit with the requirement.",
            )
        if stated < required:
            return Check(
                "Low",
                "stricter time limit than required",
                "The document is stricter than the requirement; this complies but may be costly to operate.",
                "Confirm the stricter limit is intended.",
            )
    if _STRONG.search(requirement) and _WEAK.search(target) and not _STRONG.search(target):
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


def overall_status(findings: list[dict[str, Any]]) -> str:
    severities = {f["severity"] for f in findings}
    if severities & {"Critical", "High"}:
        return "Major Violations"
    if severities:
        return "Minor Issues"
    return "Compliant"


def render(report: dict[str, Any], *, themes_are: str = "requirements") -> str:
    """Markdown grouped by target document, then by severity."""
    theme_label, target_label = ("Requirement", "Document") if themes_are == "requirements" else ("Text", "Rule")
    lines = [f"**Audit result: {report['overall_status']}**", "", report["summary"]]
    for target in report["targets_checked"]:
        findings = [f for f in report["findings"] if f["target_doc_id"] == target["id"]]
        lines += ["", f"### {target['title']}"]
        if not findings:
            lines.append("No issues found for the requirements checked.")
        for severity in SEVERITY_ORDER:
            for f in (f for f in findings if f["severity"] == severity):
                lines.append(f"- **{severity}** — {f['theme']}: {f['issue']}. {f['consequence']}")
                lines.append(f"  - {theme_label}: “{f['source_quote']}”")
                if f["target_quote"]:
                    lines.append(f"  - {target_label}: “{f['target_quote']}” {f['cite']}")
                lines.append(f"  - Suggestion: {f['suggestion']}")
    return "\n".join(lines)


_COMMAND = re.compile(r"^\s*(please\s+)?(audit|check|review|verify|assess|compare)\b", re.I)
MAX_REQUIREMENTS = 10


def requirement_sentences(text: str) -> list[str]:
    """Requirement clauses in a user's audit request: what follows a colon, minus command sentences."""
    body = text.split(":", 1)[1] if ":" in text else text
    clauses = [s for s in split_sentences(body) if not (_COMMAND.match(s) and not _STRONG.search(s))]
    return clauses[:MAX_REQUIREMENTS]
