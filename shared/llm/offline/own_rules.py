"""The profile in the offline engine's summaries and comparisons: the user's own rules first, and whose rules apply.

An extractive engine cannot reason about jurisdiction, but it can notice that a sentence names the
user's place or trade (their onboarding profile, docs/architecture.md §7.5) and put that sentence
first, when it is nearly as central or relevant as what would have been said anyway, and it can
tell which of the compared documents name them. Inquire does the same with its own ranking
(`compose.lead_with_own_rules`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shared.embeddings.provider import embed_async
from shared.llm.offline.compose import PROFILE_KEEP, naming
from shared.llm.schemas import Passage, Profile
from shared.text.extracts import Extract, select_extracts
from shared.text.sentences import candidate_sentences


def ranked_note(profile: Profile, named: Sequence[str]) -> str:
    """The line that says the ranking was the user's: "*Ranked for Acme Bank: rules that name Malaysia come first.*"."""
    who = profile.company or "your profile"
    return f"*Ranked for {who}: rules that name {' or '.join(named)} come first.*"


def _own_first(extracts: list[Extract], own: list[Extract]) -> list[Extract]:
    """`extracts` led by the most relevant of `own` (added, in place of the last, when not among them)."""
    lead = max(own, key=lambda e: e.similarity)
    rest = [e for e in extracts if e.sentence != lead.sentence]
    return [lead, *(rest if len(rest) < len(extracts) else rest[:-1])] if extracts else [lead]


async def extracts_for(
    passages: Sequence[Passage], *, k: int, focus: str, profile: Profile
) -> tuple[list[Extract], list[str]]:
    """Up to `k` sentences of the passages: the most relevant to `focus`, or (no focus) the most
    central, in reading order. A sentence naming the user's place or trade leads when it is at least
    `PROFILE_KEEP` as relevant as the best one. Also returns which of the user's names lead."""
    sentences = candidate_sentences(passages)
    if not sentences:
        return [], []
    texts = [s.text for s in sentences]
    if focus:
        vectors = await embed_async([focus, *texts])
        anchor, vectors = vectors[0], vectors[1:]
    else:
        vectors = await embed_async(texts)
        centroid = vectors.mean(axis=0)
        anchor = centroid / (np.linalg.norm(centroid) or 1.0)
    picks = select_extracts(anchor, sentences, vectors, k=k, floor=-1.0)
    if not focus:
        picks.sort(key=lambda e: sentences.index(e.sentence))
    names = profile.places_and_trades()
    if not names or not picks:
        return picks, []
    similarities = vectors @ anchor
    best = float(similarities.max())
    own = [
        Extract(s, float(similarities[i]))
        for i, s in enumerate(sentences)
        if similarities[i] >= PROFILE_KEEP * best and naming(names, s.text)
    ]
    if not own:
        return picks, []
    led = _own_first(picks, own)
    return led, naming(names, led[0].sentence.text)


def whose_rules(profile: Profile, passages: Sequence[Passage]) -> str:
    """Which compared documents name the user's place or trade: theirs are the rules that apply to them
    ('' for a profile without place or trade)."""
    names = profile.places_and_trades()
    if not names:
        return ""
    text_by_document: dict[str, str] = {}
    for passage in passages:
        text_by_document[passage.document] = f"{text_by_document.get(passage.document, '')} {passage.text}"
    who = profile.company or "you"
    naming_docs = {doc: naming(names, text) for doc, text in text_by_document.items()}
    own = [f"**{doc}** names {' and '.join(found)}" for doc, found in naming_docs.items() if found]
    if not own:
        listed = " or ".join(names)
        return f"None of the documents names {listed}; check which rules apply to {who} before relying on them."
    others = [f"**{doc}**" for doc, found in naming_docs.items() if not found]
    tail = f"; {', '.join(others)} {'does' if len(others) == 1 else 'do'} not" if others else ""
    return f"Whose rules apply to {who}: {'; '.join(own)}{tail}."
