"""What a yes/no question about a figure asks: its sign, a bar it is measured against, or its trend.

"Does Apple have positive working capital based on FY2024 data?" asks the sign of a figure computed
from two rows; "Is the current ratio above 1.0?" and "Does it have a healthy liquidity profile based
on its quick ratio?" measure a ratio against a bar (1.0 where the question gives none: the analysts'
rule of thumb, stated in the answer); "Does it have an improving gross margin profile?" and "Did
operating margin contract from fiscal 2023 to fiscal 2024?" ask whether the figure moved one way
between two periods; "Did it record a goodwill impairment in fiscal 2024?" asks whether the line has
a figure in the period or a dash. The answer opens with its verdict (shared/llm/offline/verdict.py)
and the figures that decide it. A question whether the filing says something no line prints ("Has
it reported customer concentration?") is answered from its sentences, as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

# A yes/no question opens with its verb, or has it after its framing ("Based on its September 28, 2024
# balance sheet, did …").
_YES_NO = re.compile(r"(?:^\s*|,\s+)(?:does|do|did|is|are|was|were|has|have|had|can|could|would|will)\b", re.I)
# "By how much, in percent, did …" asks a figure.
_WH = re.compile(r"\b(?:how|what|which|when|where|why|who|whom|whose)\b", re.I)
_UP = re.compile(
    r"\b(?:improv(?:e|es|ed|ing|ement)|expand(?:s|ed|ing)?|expansion|gr[eo]w(?:s|n|ing|th)?|increas(?:e|es|ed|ing)|"
    r"r[io]se[ns]?|rising|higher|strengthen(?:s|ed|ing)?|widen(?:s|ed|ing)?)\b",
    re.I,
)
_DOWN = re.compile(
    r"\b(?:deteriorat(?:e|es|ed|ing|ion)|declin(?:e|es|ed|ing)|decreas(?:e|es|ed|ing)|f[ae]ll(?:s|en|ing)?|"
    r"contract(?:s|ed|ing|ion)?|shr[aiu]nk(?:s|ing)?|lower|weaken(?:s|ed|ing)?|worsen(?:s|ed|ing)?|"
    r"narrow(?:s|ed|ing)?|compress(?:es|ed|ing|ion)?|erod(?:e|es|ed|ing)|erosion|drop(?:s|ped|ping)?)\b",
    re.I,
)
_POSITIVE = re.compile(
    r"\b(?:positive|profitable|a\s+(?:net\s+|operating\s+)?profit|surplus|net\s+cash\s+position)\b", re.I
)
_NEGATIVE = re.compile(r"\b(?:negative|unprofitable|(?:a\s+|net\s+|operating\s+)loss|deficit|shortfall)\b", re.I)
_NUMBER = r"(\d+(?:\.\d+)?)\s*(%|x\b|times\b|percent\b)?"
_ABOVE = re.compile(
    r"\b(?:above|exceed(?:s|ed|ing)?|greater\s+than|more\s+than|at\s+least|higher\s+than|(?:better|stronger)\s+than|"
    # A bar met: "pass a 1.0x quick-ratio test", "reach its 20% return goal".
    r"pass(?:es|ed)?|meet(?:s)?|met|clear(?:s|ed)?|satisf(?:y|ies|ied)|reach(?:es|ed)?|hit|achieve[sd]?)"
    r"\s+(?:the\s+|a\s+|an\s+|its\s+|their\s+)?(?:\w+\s+){0,3}?" + _NUMBER,
    re.I,
)
_BELOW = re.compile(
    r"\b(?:below|under|less\s+than|lower\s+than|at\s+most|beneath|short\s+of)\s+(?:the\s+|a\s+|an\s+)?"
    r"(?:\w+\s+){0,3}?" + _NUMBER,
    re.I,
)
# A liquidity ratio judged without a bar: its rule of thumb is one (current assets cover current
# liabilities).
_HEALTHY = re.compile(r"\b(?:healthy|sound|strong|adequate|comfortable|solid)\b", re.I)
_LIQUIDITY_RATIO = re.compile(r"\b(?:quick|current|acid[- ]test|cash)\s+ratio\b", re.I)
RULE_OF_THUMB = 1.0
# Of these, less is better: an "improving" one fell.
_LESS_IS_BETTER = re.compile(
    r"\b(?:costs?|expenses?|debt|leverage|days\s+(?:sales|inventory)|dso|dio|losses|cash\s+conversion\s+cycle)\b",
    re.I,
)
_IMPROVING = re.compile(r"\bimprov|\bstrengthen|\bdeteriorat|\bweaken|\bworsen", re.I)
# Whether something was done in the period: a line's figure, or a dash where there was none ("Did it
# record a goodwill impairment in fiscal 2024?", "Did it pay dividends?", "Did it raise new term debt?").
_OCCURRED = re.compile(
    r"\b(?:record(?:ed)?|recogni[sz]ed?|incur(?:red)?|pa(?:y|id)|repurchas(?:e|ed)|b(?:uy|ought)\s+back|rais(?:e|ed)|"
    r"issu(?:e|ed)|borrow(?:ed)?|book(?:ed)?|declar(?:e|ed)|take|took|make|made)\b",
    re.I,
)

# "Profitable", "a profit", "a loss": of a line of income, whatever the question names beside it.
_PROFIT = re.compile(r"\b(?:(?:un)?profitable|profits?|loss(?:es)?)\b", re.I)
PROFIT_LINE = re.compile(r"\b(?:income|profits?|loss(?:es)?|earnings)\b", re.I)

Kind = Literal["sign", "bar", "trend", "occurred"]


@dataclass(frozen=True)
class Judgement:
    """What a yes/no question asks of its figure: `kind` "sign" (above or below nothing), "bar" (above
    or below `bar`, a percentage when `percent`), "trend" (up or down from the period before) or
    "occurred" (a figure, not a dash, in the period);
    `up`: the question asks whether it is positive, above, or rose; `convention`: the bar is the
    rule of thumb, not the question's; `profit`: the figure is a line of income (PROFIT_LINE)."""

    kind: Kind
    up: bool
    bar: float = 0.0
    percent: bool = False
    convention: bool = False
    profit: bool = False


def _bar(question: str) -> Judgement | None:
    found = [(m, up) for pattern, up in ((_ABOVE, True), (_BELOW, False)) if (m := pattern.search(question))]
    if len(found) != 1:
        return None
    match, up = found[0]
    unit = (match.group(2) or "").lower()
    # "Higher than in 2023" compares two periods: a trend, not a bar.
    if not unit and "." not in match.group(1) and 1900 <= int(match.group(1)) <= 2100:
        return None
    return Judgement("bar", up, float(match.group(1)), percent=unit in ("%", "percent"))


def _trend(question: str) -> Judgement | None:
    up, down = bool(_UP.search(question)), bool(_DOWN.search(question))
    if up == down:
        return None
    # "Improving" days sales outstanding or expenses fell.
    if _IMPROVING.search(question) and _LESS_IS_BETTER.search(question):
        up = not up
    return Judgement("trend", up)


def asked_judgement(question: str) -> Judgement | None:
    """The judgement a yes/no question asks of a figure, if it asks one (module docstring)."""
    verb = _YES_NO.search(question)
    if verb is None or _WH.search(question[: verb.start()]):
        return None
    bar = _bar(question)
    if bar:
        return bar
    if _HEALTHY.search(question) and _LIQUIDITY_RATIO.search(question):
        return Judgement("bar", True, RULE_OF_THUMB, convention=True)
    positive, negative = bool(_POSITIVE.search(question)), bool(_NEGATIVE.search(question))
    if positive != negative:
        return Judgement("sign", positive, profit=bool(_PROFIT.search(question)))
    return _trend(question) or (Judgement("occurred", True) if _OCCURRED.search(question) else None)
