"""Rule-based intent classification (task `intent`) with a confidence and multi-action detection."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

ACTION_PATTERNS: dict[str, re.Pattern[str]] = {
    "summarize": re.compile(r"\b(summari[sz]e|summary|overview|tl;?dr|key points|gist)\b", re.I),
    "compare": re.compile(r"\b(compare|comparison|versus|vs\.?|differences?|differ|contrast)\b", re.I),
    "audit": re.compile(r"\b(audit|complian(?:ce|t)|violat\w*|breach\w*|conform\w*|gap analysis)\b", re.I),
}
QUESTION = re.compile(r"\?\s*$|^\s*(what|who|when|where|why|how|which|is|are|does|do|can|should|must|may)\b", re.I)
TOPIC_NARROWING = re.compile(r"\b(about|regarding|on the topic of|concerning|related to)\b", re.I)
STALE_WORDS = re.compile(
    r"\b(latest|recent|recently|current|currently|now|today|still (?:in force|enforced|valid|applicable))\b", re.I
)


@dataclass(frozen=True)
class IntentResult:
    actions: tuple[str, ...]
    confidence: str
    web_search: bool

    @property
    def action(self) -> str:
        return self.actions[0]


def temporal_flag(text: str, today: date | None = None) -> bool:
    today = today or date.today()
    years = {str(today.year), str(today.year - 1)}
    return bool(STALE_WORDS.search(text)) or any(y in text for y in years)


def classify_intent(text: str) -> IntentResult:
    matched = [action for action, pattern in ACTION_PATTERNS.items() if pattern.search(text)]
    web = temporal_flag(text)
    if matched == ["summarize"] and TOPIC_NARROWING.search(text):
        # "Summarize X about Y" asks a question about a topic: inquire answers it.
        return IntentResult(("inquire",), "high", web)
    if len(matched) > 1:
        return IntentResult(tuple(matched), "low", web)
    if len(matched) == 1:
        return IntentResult((matched[0],), "high", web)
    return IntentResult(("inquire",), "high" if QUESTION.search(text) else "medium", web)
