"""The kind of quantity a question asks for, and whether a sentence states one (issue #27, honest confidence).

"How many employees does Northwind have?" over a policy that "applies to every employee", or "How
often must employees change their passwords?" over one that says they "must never share
passwords": the sentences that hold the question's words state no count, no frequency. Such
passages are about the question's subject but do not answer it, and the evidence is "low"
(services/actions/evidence.py). A question asks for:
- a **count** ("how many"): a number, in figures or words;
- an **amount** ("how much", "what percentage"): the same;
- a **duration** ("how long", "within what time", "the deadline", "the time limit"): a number of
  time units, a start ("since 1990"),
  or a bound in words ("as long as", "until", "without undue delay");
- a **period**, a count of time units ("how many days", "how many years"): a number of them. A bound in
  words ("so long as they remain in compliance") does not say how many days;
- a **frequency** ("how often"): once, every or per a time unit, or a word for one ("annually").
Set on the dev split of examples/eval and its unanswerable probe (docs/answers-on-real-documents.md).
"""

from __future__ import annotations

import re
from typing import Literal

from shared.text.numbers import NUMBER_WORDS

Kind = Literal["count", "amount", "duration", "period", "frequency"]

_UNIT = r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|quarters?|decades?)"
_NUMBER_WORDS = "|".join([*sorted(NUMBER_WORDS, key=len, reverse=True), "thousand", "million", "billion"])
_NUMBER = re.compile(rf"\d|\b(?:{_NUMBER_WORDS}|dozen|half|single|no|none)\b", re.I)
_COUNTED = rf"(?:\d[\d,.]*|{_NUMBER_WORDS}|a|an|several|few)"
_PERIOD = rf"\b{_COUNTED}\s+(?:\w+\s+)?{_UNIT}\b"
_DURATION = re.compile(
    rf"{_PERIOD}|"
    r"\b(?:as\s+long\s+as|until|indefinitely|permanently|immediately|without\s+(?:undue\s+)?delay|promptly)\b|"
    r"\bsince\s+(?:\w+\s+)?\d{4}\b",
    re.I,
)
_FREQUENCY = re.compile(
    rf"\b(?:every|each|once|twice|per|a|an)\s+(?:\w+\s+)?{_UNIT}\b|"
    r"\b(?:annually|yearly|monthly|weekly|daily|quarterly|hourly|continuously)\b",
    re.I,
)
_ASKED: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    ("period", re.compile(rf"\bhow\s+many\s+(?:\w+\s+)?{_UNIT}\b", re.I)),
    ("count", re.compile(r"\bhow\s+many\b", re.I)),
    ("amount", re.compile(r"\bhow\s+much\b|\bwhat\s+percentage\b", re.I)),
    (
        "duration",
        re.compile(r"\bhow\s+long\b|\bwithin\s+(?:what|how)\b|\bdeadlines?\b|\btime\s*(?:limits?|frames?)\b", re.I),
    ),
    ("frequency", re.compile(r"\bhow\s+(?:often|frequently)\b", re.I)),
)
_STATES: dict[Kind, re.Pattern[str]] = {
    "count": _NUMBER,
    "amount": _NUMBER,
    "duration": _DURATION,
    "period": re.compile(_PERIOD, re.I),
    "frequency": _FREQUENCY,
}


def asked_kind(question: str) -> Kind | None:
    """The kind of quantity the question asks for, the first its words name; None for any other question."""
    return next((kind for kind, pattern in _ASKED if pattern.search(question)), None)


def states(kind: Kind, sentence: str) -> bool:
    """Whether the sentence states a quantity of that kind."""
    return _STATES[kind].search(sentence) is not None
