"""References back to the conversation: pronouns ("it", "those two docs", "both"), typed
references ("the policy", "these regulations") and positions ("the former", "the first one").

A bare pronoun takes the most recent registry documents; a typed reference takes those of its
kind (one → it, several → a PalAssist choice; none in the conversation → the user's documents
of that kind).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shared.llm.offline.documents.vocabulary import (
    MAX_DOCS,
    NOUN,
    TYPE_NOUNS,
    WORD,
    Evidence,
    Request,
    base_title,
    noun_key,
)

_NUMBER_WORDS = {"two": 2, "2": 2, "three": 3, "3": 3, "four": 4, "4": 4, "five": 5, "5": 5, "both": 2}
_COUNT = r"(?:two|2|three|3|four|4|five|5)"
# "the act of handing over a copy", "the notice of terminating": a document noun followed by "of" and
# a gerund names a deed, not a document.
_TYPED = re.compile(
    rf"\b(?P<det>the|this|that|these|those|our|both|all|all (?:the|these|those|of the)|"
    rf"the {_COUNT}|these {_COUNT}|those {_COUNT}|all {_COUNT}|both (?:the|of the|of these|of those))\s+"
    rf"(?:same\s+|other\s+|previous\s+|earlier\s+|above\s+|last\s+)?{NOUN}\b(?!\s+of\s+\w+ing\b)",
    re.I,
)
_PLURAL_PRONOUN = re.compile(
    rf"\b(?P<ref>all (?:of )?(?:them|these|those|{_COUNT})|both(?: of (?:them|these|those))?|"
    rf"these|those|them|the {_COUNT})\b",
    re.I,
)
_SINGULAR_PRONOUN = re.compile(
    r"\b(it|(?:this|that)(?=\s*(?:[.,;:!?)]|$|\s(?:against|with|to|and|for|into|please|one|again|too|"
    r"above|first|instead)\b))|(?:does|did|is|was|can|will|would|could|should)\s+(?P<subject>this|that))\b",
    re.I,
)
_POSITIONAL = re.compile(
    rf"\bthe (?P<pos>former|latter|(?:first|second|third|last|previous|latest)(?=\s+(?:one\b|{NOUN}|"
    rf"(?:and|or) (?:the )?(?:first|second|third|last|previous|latest) (?:one\b|{NOUN}))))"
    rf"(?:\s+(?:one\b|{NOUN}))?",
    re.I,
)
_POSITIONS = {"first": 0, "second": 1, "third": 2, "former": -2, "latter": -1, "last": -1, "previous": -1, "latest": -1}


@dataclass
class _Reference:
    count: int | None  # None: all of them
    kind: str | None  # a doc_type, "" for a document noun of any kind, None for a bare pronoun
    noun: str | None
    definite: bool  # "the policy" (several → a choice) rather than "that policy" (the latest)
    start: int
    position: int | None = None  # "the former" (-2), "the first one" (0)


def _typed_reference(m: re.Match[str]) -> _Reference:
    det, noun = m.group("det").lower(), m.group(m.lastindex or 0).lower()
    key = noun_key(noun)
    plural = noun != key
    count_word = next((w for w in det.split() if w in _NUMBER_WORDS), None)
    if det.startswith("all") and not count_word:
        count = None
    elif count_word:
        count = _NUMBER_WORDS[count_word]
    else:
        count = None if plural else 1
    kind = TYPE_NOUNS.get(key)
    return _Reference(count, "" if kind is None else kind, key, det in {"the", "our"}, m.start())


def _plural_reference(m: re.Match[str]) -> _Reference:
    ref_words = m.group("ref").lower().split()
    count_word = next((w for w in ref_words if w in _NUMBER_WORDS and w != "both"), None)
    if ref_words[0] == "all":
        count = _NUMBER_WORDS[count_word] if count_word else None
    else:
        count = _NUMBER_WORDS.get(count_word or "", 2)
    return _Reference(count, None, None, False, m.start())


def _references(text: str) -> list[_Reference]:
    """The references in the text, in reading order; a span claimed by one kind is not read again."""
    refs: list[_Reference] = []
    taken: list[tuple[int, int]] = []
    for m in _POSITIONAL.finditer(text):
        noun = noun_key(m.group(m.lastindex or 0)) if (m.lastindex or 0) > 1 else None
        kind = TYPE_NOUNS.get(noun) if noun else None
        refs.append(_Reference(1, kind or None, noun, False, m.start(), _POSITIONS[m.group("pos").lower()]))
        taken.append(m.span())
    for pattern, reference in ((_TYPED, _typed_reference), (_PLURAL_PRONOUN, _plural_reference)):
        for m in pattern.finditer(text):
            if any(a <= m.start() < b for a, b in taken):
                continue
            refs.append(reference(m))
            taken.append(m.span())
    for m in _SINGULAR_PRONOUN.finditer(text):
        start = m.start("subject") if m.group("subject") else m.start()
        if not any(a <= start < b for a, b in taken):
            refs.append(_Reference(1, None, None, False, start))
    return sorted(refs, key=lambda r: r.start)


def _of_kind(doc_id: str, ref: _Reference, request: Request) -> bool:
    if not ref.kind:
        return True
    if request.doc_types.get(doc_id) == ref.kind:
        return True
    title_words = {noun_key(w) for w in WORD.findall(base_title(request.titles.get(doc_id, "")).lower())}
    return ref.noun in title_words


def _meant_elsewhere(ref: _Reference, request: Request, evidence: Evidence) -> bool:
    """A reference that points at documents the message already names or tags."""
    tagged = request.tagged
    one_document = request.action not in ("compare", "audit")
    if not ref.kind:
        if tagged and ref.count != 1 and (ref.count or len(tagged)) <= len(tagged):
            return True  # "these two docs" with two documents tagged: the tagged ones
        return ref.count == 1 and bool(tagged or evidence.named) and one_document  # "summarize @Policy and explain it"
    if not any(_of_kind(d, ref, request) for d in tagged):
        return False
    # "Audit @Email against the guideline" with the guideline tagged too: it means that one. So does
    # "Which measures does the regulation mention?" asked of a tagged regulation (compare and audit
    # read "@Policy against the regulation" as another document: they take two).
    return len(tagged) >= 2 or (ref.count == 1 and one_document)


def _offers_choice(ref: _Reference, fits: list[str]) -> bool:
    """ "the policy" with several policies in the conversation: the user chooses."""
    return ref.position is None and bool(ref.definite and ref.kind) and ref.count == 1 and len(fits) > 1


def _chosen(ref: _Reference, fits: list[str]) -> list[str]:
    """The documents a reference picks among those that fit it (none for a position out of range)."""
    if ref.position is not None:
        if ref.position == -2 and len(fits) < 2 or ref.position >= len(fits):
            return []
        return [fits[ref.position]]
    if ref.count is None:
        return fits[-MAX_DOCS:]
    return fits[-ref.count :]


def add_reference_evidence(request: Request, evidence: Evidence) -> None:
    """Each reference takes the conversation's documents it fits, newest first, each at most once."""
    pool = [d for d in request.registry.values() if d not in evidence.ids]
    for ref in _references(request.text):
        if _meant_elsewhere(ref, request, evidence):
            continue
        fits = [d for d in pool if _of_kind(d, ref, request)]
        if ref.kind and not fits and not request.registry:
            fits = [d for d in request.library if d not in evidence.ids and _of_kind(d, ref, request)]
        if not fits:
            continue
        if _offers_choice(ref, fits):
            if not evidence.candidates:
                evidence.candidates = [(d, request.titles[d]) for d in fits]
                evidence.sources.append(("inferred", "medium"))
            continue
        chosen = _chosen(ref, fits)
        if not chosen:
            continue
        evidence.ids.extend(d for d in chosen if d not in evidence.ids)
        pool = [d for d in pool if d not in chosen]
        # One clear match for the reference among the conversation's documents: high confidence.
        evidence.sources.append(("inferred", "high"))
