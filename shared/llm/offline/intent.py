"""Rule-based intent classification (task `intent`) with a confidence and multi-action detection.

Rules, in order: an action word (summarize / compare / audit, each in its usual phrasings) decides
the action; two or more actions are a multi-action request (confidence low → PalAssist choice);
"summarize X about Y" is a question about a topic (inquire); where no action word matched, a
small supervised model (intent_model.py) may still recognise an action phrased in other words
(medium confidence); otherwise a question or an information request
("explain", "list", "tell me") is inquire with high confidence; anything else is inquire with
medium confidence, and a short follow-up that points at another document ("now the regulation",
"same for the HR policy") continues the action of the last 5 user messages (`history`).
Evaluated against evals/intent_cases.jsonl by bench/labelled.py.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from shared.actions import action_specs
from shared.llm.offline import intent_model
from shared.text.temporal import temporal_flag

if TYPE_CHECKING:
    from sklearn.pipeline import Pipeline


def action_patterns() -> dict[str, re.Pattern[str]]:
    """Each action's words, from its record (shared/actions), in the table's order."""
    return {spec.name: spec.intent_pattern for spec in action_specs() if spec.intent_pattern is not None}


# "the difference between a controller and a processor" compares concepts, not documents.
CONCEPT_DIFFERENCE = re.compile(r"\bdifferences? between (?:an?|one) \w", re.I)
# "summarize the differences between…" asks for a comparison, not a summary.
SUMMARY_OF_DIFFERENCES = re.compile(
    r"\b(?:summari[sz]e|summary of|overview of)\s+(?:the\s+|all\s+|main\s+|key\s+)*"
    r"(?:differences?|similarities|changes|comparison)\b",
    re.I,
)
EACH_OTHER = re.compile(r"\bagainst (?:each other|one another)\b", re.I)
QUESTION = re.compile(
    r"\?\s*$|^\s*(what|what's|who|when|where|why|how|which|is|are|does|do|did|can|could|should|must|may|will|"
    r"would|has|have|any)\b",
    re.I,
)
INFORMATION_REQUEST = re.compile(
    r"^\s*(?:please\s+)?(explain|describe|define|clarify|list|find|show me|tell me|walk me through|"
    r"help me understand|what's|give me (?:the|an?) (?:answer|definition|explanation))\b",
    re.I,
)
DOCUMENT_NOUNS = (
    r"(?:policy|policies|regulations?|doc|docs|documents?|files?|guidelines?|guides?|handbooks?|act|acts|"
    r"procedures?|standards?|versions?|editions?|releases?|revisions?|amendments?|drafts?|circulars?|notices?|"
    r"contracts?|framework)"
)
# "Summarize X about Y": a topic after the document narrows the request to a question. A document
# named last ("a summary for the newsletter about the 2025 guideline") is what to summarise, not a topic.
TOPIC_NARROWING = re.compile(
    r"\b(?:about|regarding|on the topic of|concerning|related to|with respect to|in relation to)\s+"
    r"(?!(?:it|this|that|them|these|those)\b)(?!(?:the |our |this |that )?(?:new |old |latest |current |attached )?"
    rf"(?:(?:19|20)\d\d )?{DOCUMENT_NOUNS}\s*[.?!]*\s*$)[a-z0-9]",
    re.I,
)
# A short follow-up aimed at another document continues the previous action.
FOLLOW_UP = re.compile(
    r"^\s*(?:and|now|also|then|next|same (?:for|with)|(?:do|repeat) (?:the same|that|this|it)(?: again)?|"
    r"again|what about|how about)\b",
    re.I,
)
DOC_NOUN = re.compile(rf"\b({DOCUMENT_NOUNS}|rules|one|(?:19|20)\d\d)\b", re.I)
FOLLOW_UP_MAX_WORDS = 8


@dataclass(frozen=True)
class IntentResult:
    actions: tuple[str, ...]
    confidence: str
    web_search: bool

    @property
    def action(self) -> str:
        return self.actions[0]


def _actions(text: str) -> list[str]:
    matched = [action for action, pattern in action_patterns().items() if pattern.search(text)]
    if "compare" in matched and CONCEPT_DIFFERENCE.search(text) and not re.search(r"\bcompar", text, re.I):
        matched.remove("compare")
    if "summarize" in matched and "compare" in matched and SUMMARY_OF_DIFFERENCES.search(text):
        matched.remove("summarize")
    if "audit" in matched and "compare" in matched and EACH_OTHER.search(text):
        matched.remove("audit")  # "check the two licences against each other" sets documents side by side
    return matched


def _is_follow_up(text: str) -> bool:
    return bool(FOLLOW_UP.search(text)) and bool(DOC_NOUN.search(text)) and len(text.split()) <= FOLLOW_UP_MAX_WORDS


def _learned_action(text: str, learned: Pipeline | None) -> str | None:
    """An action the supervised model (intent_model.py) is fairly sure of where no action word matched."""
    predicted = intent_model.predict(text, learned)
    if predicted is None:
        return None
    action, probability = predicted
    least = intent_model.QUESTION_MIN_PROBABILITY if QUESTION.search(text) else intent_model.MIN_PROBABILITY
    return action if action != "inquire" and probability >= least else None


def classify_intent(
    text: str, *, history: Sequence[str] | None = None, today: date | None = None, learned: Pipeline | None = None
) -> IntentResult:
    """Classify the latest message; with `history` (earlier user messages, oldest first) a result
    of medium confidence is retried against the last 5 of them (docs/architecture.md §7.1).
    `learned`: a model fitted elsewhere (bench/intent.py's cross-validation) instead of the trained one."""
    matched = _actions(text)
    web = temporal_flag(text, today)
    if matched == ["summarize"] and TOPIC_NARROWING.search(text):
        # "Summarize X about Y" asks a question about a topic: inquire answers it.
        return IntentResult(("inquire",), "high", web)
    if len(matched) > 1:
        return IntentResult(tuple(matched), "low", web)
    if len(matched) == 1:
        return IntentResult((matched[0],), "high", web)
    if _is_follow_up(text):
        result = IntentResult(("inquire",), "medium", web)
    elif action := _learned_action(text, learned):
        return IntentResult((action,), "medium", web)
    elif QUESTION.search(text) or INFORMATION_REQUEST.search(text):
        result = IntentResult(("inquire",), "high", web)
    else:
        result = IntentResult(("inquire",), "medium", web)
    if result.confidence == "medium" and history:
        for earlier in reversed(list(history)[-5:]):
            previous = classify_intent(earlier, today=today, learned=learned)
            if previous.confidence == "high" and len(previous.actions) == 1:
                return IntentResult(previous.actions, "medium", web)
    return result
