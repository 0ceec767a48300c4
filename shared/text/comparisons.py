"""What a question that compares members asks: "which … the largest / smallest / grew the most …".

"Which product category had the largest decline in net sales in fiscal 2024?" asks the member of a
table whose change is the most negative; "Among operating, investing and financing activities,
which used the most cash?" lists its members and asks the most negative figure. The search
(services/actions/line_search.py) and the offline answer (shared/llm/offline/superlative.py) read
the question here, once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shared.text.search_query import expand

_WHICH = re.compile(r"\b(?:which|what|who)\b|\bamong\b|\bof (?:the|its|their)\b", re.I)
# "Most" of a quantity, not of a quality ("the most significant risks", "the most recent quarter").
_MOST = re.compile(
    r"\b(?:largest|biggest|greatest|highest|fastest|strongest|top|larger|higher|faster|bigger|greater)\b"
    r"|\bmost\b(?!\s+(?:significant|important|notable|recent|likely|common|material|critical|comparable|directly|"
    r"relevant|frequent|severe))",
    re.I,
)
_LEAST = re.compile(r"\b(?:smallest|lowest|least|slowest|weakest|worst|fewest|smaller|lower|slower)\b", re.I)
_GROWTH = re.compile(
    r"\b(?:grow(?:th|n|s)?|grew|increase[sd]?|rise|rose|risen|gain(?:ed|s)?|expand(?:ed)?|add(?:ed|s)?)\b", re.I
)
_DECLINE = re.compile(
    r"\b(?:declin(?:e|ed|es|ing)|decrease[sd]?|drop(?:ped|s)?|fell|fall(?:en|s)?|shr[aiu]nk|contract(?:ed|ion))\b", re.I
)
_CHANGED = re.compile(r"\bchange[sd]?\b|\byear[- ]over[- ]year\b|\byoy\b", re.I)
_AMOUNT = re.compile(r"\b(?:dollars?|absolute|amount|USD|in \$)\b|\bdollar terms\b", re.I)
_PERCENT = re.compile(r"\bper ?cent(?:age)?\b|%|\brates?\b|\bfastest\b|\bslowest\b", re.I)
# Cash used ("which activity used the most cash") is printed as a negative figure.
_USED = re.compile(r"\b(?:use|used|uses|spent|spend|consumed|outflows?|burn(?:ed|t)?)\b", re.I)
# What the question asks of the members and of which period: no words of what is compared.
ASKING = re.compile(
    "|".join(p.pattern for p in (_WHICH, _MOST, _LEAST, _GROWTH, _DECLINE, _CHANGED, _AMOUNT, _PERCENT, _USED))
    + r"|\b(?:fiscal|FY|years?|quarters?|months?|periods?|ended|ending|terms|compared|versus|vs|over|three|six|nine|"
    r"twelve|first|second|third|fourth|Q[1-4]|January|February|March|April|May|June|July|August|September|"
    r"October|November|December|\d{1,4})\b",
    re.I,
)
POSSESSIVE = re.compile(r"\b[\w.&-]+['’]s\b")
# What members are ("which segment", "which product category"), not what is compared of them.
KIND = re.compile(
    r"\b(?:reportable|operating segments?|segments?|categor(?:y|ies)|regions?|geographic(?:al)?|geograph(?:y|ies)|"
    r"products?|divisions?|channels?|business(?:es)?|markets?|lines?|activit(?:y|ies)|units?|countr(?:y|ies)|"
    r"types?|class(?:es)?|brands?|platforms?|offerings?|sources?|components?|items?|groups?)\b",
    re.I,
)
MIN_MEMBERS = 2
MAX_ITEM_WORDS = 3
# The members a question lists: "Among operating, investing and financing activities, which …",
# "Of R&D, sales and marketing, and G&A, which …", "Which of iPhone, Mac and iPad …".
_LIST = re.compile(
    r"\b(?P<lead>among|of|between|which of|comparing)\s+(?:the\s+|its\s+)?"
    r"(?P<items>[^,?;]+(?:,\s*[^,?;]+)*?,?\s+(?:and|or)\s+[^,?;]+?)"
    r"(?=,|\s+(?:which|had|has|have|was|were|is|are|did|does|grew|used|generated|earned|saw|posted|"
    r"reported|recorded|in|for|during|over|from|with)\b|\?|$)",
    re.I,
)


@dataclass(frozen=True)
class Superlative:
    """What a question compares: the largest (`most`) or the smallest, of one period's figures or of
    their change between two periods (`change`), a change as a percentage (`percent`) or an
    amount; `used`: of cash used, printed as negative figures."""

    most: bool
    change: bool
    percent: bool
    used: bool = False


def asked_superlative(question: str) -> Superlative | None:
    """The comparison a "which … the largest/smallest …" question asks; none for other questions.
    "The largest decline" is the most negative change; "used the most cash" the most negative
    figure."""
    most, least = _MOST.search(question), _LEAST.search(question)
    if not _WHICH.search(question) or not (most or least):
        return None
    grew, fell = _GROWTH.search(question), _DECLINE.search(question)
    used = not (grew or fell) and bool(_USED.search(question))
    # "The largest use of cash among the changes in operating assets" asks one period's figures.
    change = bool(grew or fell or _CHANGED.search(question) and not used)
    percent = not _AMOUNT.search(question) and (bool(_PERCENT.search(question)) or change)
    largest = most is not None and not (least is not None and least.start() < most.start())
    return Superlative(largest ^ bool(fell and not grew) ^ used, change, percent, used)


def listed_members(question: str) -> list[str]:
    """Each member the question lists, without its kind ("investing" of "investing and financing
    activities") and with its abbreviations spelled out ("R&D research and development"); none when
    it lists fewer than two."""
    match = _LIST.search(question)
    if not match:
        return []
    pieces = [p.strip() for p in POSSESSIVE.sub(" ", match.group("items")).split(",") if p.strip()]
    # "of similar products and services" is no list: two members are listed after "among", "between"
    # or "which of"; after a bare "of", only a list with commas is one. Dates are periods, not members.
    if len(pieces) < MIN_MEMBERS and match.group("lead").lower() == "of" or re.search(r"\d", match.group("items")):
        return []
    oxford = re.match(r"(?:and|or)\s+(.*)", pieces[-1])
    last = [oxford.group(1)] if oxford else re.split(r"\s+(?:and|or)\s+", pieces[-1])
    # The list ends at its members' kind ("financing activities") or within a few words.
    kind = KIND.search(last[-1])
    last[-1] = last[-1][: kind.end()] if kind else " ".join(last[-1].split()[:MAX_ITEM_WORDS])
    items = [" ".join([KIND.sub(" ", item), *expand(item, parts=False)]).strip() for item in [*pieces[:-1], *last]]
    return items if len(items) >= MIN_MEMBERS and all(items) else []
