"""What a yes/no question about a figure asks: its sign, a bar it is measured against, or its trend.

"Does Apple have positive working capital based on FY2024 data?" asks the sign of a figure computed
from two rows; "Is the current ratio above 1.0?" and "Does it have a healthy liquidity profile based
on its quick ratio?" measure a ratio against a bar (1.0 where the question gives none: the analysts'
rule of thumb, stated in the answer); "Does it have an improving gross margin profile?" and "Did
operating margin contract from fiscal 2023 to fiscal 2024?" ask whether the figure moved one way
between two periods; "Did it record a goodwill impairment in fiscal 2024?" asks whether the line has
a figure in the period or a dash. The answer opens with its verdict (shared/llm/offline/verdict.py)
and the figures that decide it. What no line prints ("There were no repurchases of our common stock
in 2025", a customer's share of revenue against "10% or more") is read in a sentence that says it
(`asked_act`; shared/llm/offline/stated_verdict.py).
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
# "Any single customer at 10% or more of its net revenue": the bar, and which side of it is asked.
_OR_MORE = re.compile(
    r"(\d+(?:\.\d+)?)\s*(%|x\b|times\b|percent\b)\s+or\s+(?:(more|greater|higher|above)|less|lower|below|fewer)\b",
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
    if (either := _OR_MORE.search(question)) and not found:
        found = [(either, bool(either.group(3)))]
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


# How a filing's sentences write each act a question asks about, as a verb or its noun ("repurchased",
# "repurchases"; "did not record", "no impairment … was recognized").
_ACT_WORDS = (
    (
        re.compile(r"record|recogni[sz]|incur|book|take|took", re.I),
        r"record\w*|recogni[sz]\w*|incurr?\w*|identified",
        "",
    ),
    (re.compile(r"pa(?:y|id)", re.I), r"pa(?:id|y|ys|ying|yments?)|distributed", "paid payments"),
    (re.compile(r"repurchas|b(?:uy|ought)\s+back", re.I), r"repurchas\w*|bought\s+back|buy-?backs?", "repurchases"),
    (re.compile(r"declar", re.I), r"declar\w*", "declared"),
    (re.compile(r"rais", re.I), r"rais\w*|increas\w*", ""),
    (re.compile(r"issu", re.I), r"issu\w*", "issuance issued"),
    (re.compile(r"borrow", re.I), r"borrow\w*", "borrowings proceeds"),
)
# Debt is raised by issuing or borrowing it, whichever verb the question takes.
_DEBT = re.compile(r"\b(?:debt|notes|bonds|borrowings|loans?)\b", re.I)
_DEBT_ACT = r"rais\w*|issu\w*|borrow\w*"
_DEBT_ROWS = "proceeds issuance issuances borrowings"
# The object ends where the period or the source begins: "a goodwill impairment | in fiscal 2024".
_OBJECT_END = re.compile(r"\s(?:in|during|for|at|as\s+of|per|within|since|over|through|from|based)\b|[,?;:]|$", re.I)
# Determiners and qualifiers that a sentence stating the act need not repeat ("any new term debt").
_QUALIFIERS = frozenset({"new", "additional", "further", "own", "single"})


@dataclass(frozen=True)
class Act:
    """What an "occurred" question asks was done: how sentences write the act (`words`, a pattern of
    its verb and noun forms), the words of its object ("goodwill impairment", "common stock"), and the
    words a statement's row names the act with beside them ("Repurchases of common stock", "Proceeds
    from issuance of term debt")."""

    words: re.Pattern[str]
    object: str
    rows: str = ""


def asked_act(question: str) -> Act | None:
    """The act and object of a question whether something was done ("Did Amazon buy back any of its
    own common stock during 2025?": a repurchase, of common stock); None for another question, or an
    act too vague to read in a sentence ("make")."""
    judged = asked_judgement(question)
    verb = _OCCURRED.search(question)
    if judged is None or judged.kind != "occurred" or verb is None:
        return None
    rest = question[verb.end() :]
    end = _OBJECT_END.search(rest)
    thing = rest[: end.start() if end else len(rest)]
    found = next(((words, rows) for pattern, words, rows in _ACT_WORDS if pattern.match(verb.group(0))), None)
    if found is None:
        return None
    written, rows = found
    if _DEBT.search(thing) and re.match(_DEBT_ACT, verb.group(0), re.I):
        written, rows = _DEBT_ACT, _DEBT_ROWS
    words = " ".join(w for w in re.findall(r"[\w&'-]+", thing) if w.lower() not in _QUALIFIERS)
    return Act(re.compile(rf"\b(?:{written})\b", re.I), words, rows)
