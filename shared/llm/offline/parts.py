"""A question that asks two things is answered for each (issue #27, clean extractive answers).

"Who audits Apple's financial statements, and since when has that firm served as its auditor?" asks
for a firm and a year. The composer keeps a second sentence only while it is nearly as relevant as the
best one (`compose.RELATIVE_KEEP`), and the auditor's report opens with sentences full of the first
part's words ("We have audited the accompanying consolidated balance sheets… financial statements"):
"We have served as the Company's auditor since 2009." scored just under that bar, so the answer said
what was audited and never since when. A later part of the question (after ", and" before a question
word, after a semicolon or a question mark) whose own words the picked sentences do not hold is
answered by the best sentence that holds most of them, when it is relevant enough (`PART_KEEP` of the
best sentence's score) and above the floor, while the answer has room (`k`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from shared.llm.offline.compose import Scored, terms

_ASKING = r"(?:what|who|whom|whose|which|when|where|why|how|since|did|does|do|is|are|was|were|has|have|had|can|will)"
PART_BREAK = re.compile(rf",?\s+and\s+(?={_ASKING}\b)|;\s+|\?\s+(?=\S)", re.I)
PART_KEEP = 0.75
# A part of one word of its own ("and how much?") says too little to choose a sentence by.
MIN_PART_WORDS = 2


def question_parts(question: str) -> list[str]:
    """The things a question asks, in its order: one part for a question that asks one thing."""
    return [part for part in PART_BREAK.split(question) if part.strip()]


def _holds_most(covers: frozenset[str], words: set[str]) -> bool:
    """More than half of `words` are among `covers`."""
    return 2 * len(covers & words) > len(words)


def answer_each_part(
    question: str, scored: Sequence[Scored], picked: list[Scored], *, k: int, floor: float
) -> list[Scored]:
    """`picked`, with the best sentence for each later part of the question that it leaves unanswered."""
    parts = question_parts(question)
    if len(parts) < 2 or not picked:
        return picked
    best = max(s.score for s in scored)
    out = list(picked)
    said = terms(parts[0])
    for part in parts[1:]:
        own = terms(part) - said
        said |= terms(part)
        held = frozenset().union(*(p.covers for p in out))
        if len(own) < MIN_PART_WORDS or _holds_most(held, own) or len(out) >= k:
            continue
        taken = {p.index for p in out}
        fits = [
            s
            for s in scored
            if s.index not in taken
            and not s.heading
            and s.similarity >= floor
            and s.score >= PART_KEEP * best
            and _holds_most(s.covers, own)
        ]
        if fits:
            out.append(max(fits, key=lambda s: s.score))
    return out
