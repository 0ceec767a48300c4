"""Offline document resolution (task `doc_resolution`): which of the user's documents a message means.

Three kinds of evidence are merged (SPEC §7.3, PolicyPal "Smart Context Resolution"):

1. names — a registry title quoted verbatim; a title's distinctive words matched fuzzily (rapidfuzz
   ≥ 85 per word) against the user's documents, or its acronym ("GDPR"); a version named in the
   message ("… guidelines 2025") or the conversation picks among versions of one title;
2. references back to the conversation — pronouns ("it", "those two docs", "both", "all of them")
   take the most recent registry documents, typed references ("the policy", "that regulation",
   "these policies", "the policy above") take the registry documents of that kind (one → it,
   several → a PalAssist choice; none in the conversation → the user's documents of that kind);
3. the action's expected document shape — with nothing named, compare continues with the
   conversation's last two documents, summarize and audit with the last one.

A capitalised name with a document word ("the FSA guidelines") that matches none of the user's
documents is returned as `unresolved`: the caller asks the user to tag it.
Evaluated against evals/doc_resolution_cases.jsonl by bench/labelled.py.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from rapidfuzz import fuzz

FUZZY_THRESHOLD = 85
SURE_THRESHOLD = 95
MAX_DOCS = 5
_CONFIDENCE_ORDER = {"low": 0, "medium": 1, "high": 2}


@dataclass
class DocMatch:
    ids: list[str] = field(default_factory=list)
    source: str = "none"
    confidence: str = "low"
    candidates: list[tuple[str, str]] = field(default_factory=list)  # (id, display title) to choose from
    unresolved: list[str] = field(default_factory=list)  # names that match none of the user's documents

    @property
    def ambiguous(self) -> bool:
        """A PalAssist doc_choice is needed; the chosen documents join `ids`."""
        return len(self.candidates) > 1


def base_title(display: str) -> str:
    """ "Title (Version)" → "Title"."""
    return re.sub(r"\s*\([^)]*\)\s*$", "", display).strip()


def version_of(display: str) -> str:
    """ "Title (Version)" → "version" (lower case; "" without one)."""
    found = re.search(r"\(([^)]*)\)\s*$", display)
    return found.group(1).strip().lower() if found else ""


GENERIC = frozenset(
    {
        "a",
        "an",
        "and",
        "the",
        "of",
        "on",
        "for",
        "to",
        "in",
        "at",
        "by",
        "with",
        "our",
        "policy",
        "policies",
        "regulation",
        "regulations",
        "document",
        "documents",
        "doc",
        "docs",
        "file",
        "files",
        "guide",
        "guides",
        "guideline",
        "guidelines",
        "handbook",
        "standard",
        "standards",
        "procedure",
        "procedures",
        "version",
        "extract",
        "training",
        "act",
        "rules",
    }
)
_STOP = frozenset({"a", "an", "and", "the", "of", "on", "for", "to", "in", "at", "by", "with", "our"})
_WORD = re.compile(r"[a-z0-9][a-z0-9'-]*")

# Document nouns → the doc_types they name (None: any kind).
_TYPE_NOUNS: dict[str, str | None] = {
    "policy": "company_policy",
    "regulation": "regulatory_source",
    "guideline": "regulatory_source",
    "guidance": "regulatory_source",
    "act": "regulatory_source",
    "law": "regulatory_source",
    "directive": "regulatory_source",
    "circular": "regulatory_source",
    "notice": "regulatory_source",
    "framework": "regulatory_source",
    "standard": "regulatory_source",
    "handbook": "knowledge_base",
    "manual": "knowledge_base",
    "guide": "knowledge_base",
    "procedure": "company_policy",
    "contract": None,
    "doc": None,
    "document": None,
    "file": None,
}
_NOUN = (
    r"(polic(?:y|ies)|regulations?|guidelines?|guidance|acts?|laws?|directives?|circulars?|notices?|frameworks?|"
    r"standards?|handbooks?|manuals?|guides?|procedures?|contracts?|docs?|documents?|files?)"
)
_NUMBER_WORDS = {"two": 2, "2": 2, "three": 3, "3": 3, "four": 4, "4": 4, "five": 5, "5": 5, "both": 2}
_COUNT = r"(?:two|2|three|3|four|4|five|5)"
_TYPED = re.compile(
    rf"\b(?P<det>the|this|that|these|those|our|both|all|all (?:the|these|those|of the)|"
    rf"the {_COUNT}|these {_COUNT}|those {_COUNT}|all {_COUNT}|both (?:the|of the|of these|of those))\s+"
    rf"(?:same\s+|other\s+|previous\s+|earlier\s+|above\s+|last\s+)?{_NOUN}\b",
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
    rf"\bthe (?P<pos>former|latter|(?:first|second|third|last|previous|latest)(?=\s+(?:one\b|{_NOUN}|"
    rf"(?:and|or) (?:the )?(?:first|second|third|last|previous|latest) (?:one\b|{_NOUN}))))"
    rf"(?:\s+(?:one\b|{_NOUN}))?",
    re.I,
)
_POSITIONS = {"first": 0, "second": 1, "third": 2, "former": -2, "latter": -1, "last": -1, "previous": -1, "latest": -1}
_VERSION_REF = re.compile(r"\b(?:the\s+)?(\S+)\s+(?:version|edition|release)\b|\bversion\s+(\S+)", re.I)
_PLURAL_NOUN = re.compile(
    r"\b(?:policies|regulations|documents|docs|files|handbooks|versions|standards|procedures|acts)\b", re.I
)
# "chapter 3", "article 17": a part of a document that the conversation has in front of it.
_LOCATOR = re.compile(r"\b(?:chapter|section|article|clause|page|paragraph|annex|appendix|schedule|part)\s+\d", re.I)
_NAME_PHRASE = re.compile(
    rf"\b(?:the|our|a|an)\s+((?:(?:[A-Z0-9][\w&'./-]*|of|on|for|and)\s+){{0,5}}?{_NOUN}(?:\s+\d[\w./-]*)?)"
    rf"(?=[\s.,;:!?)]|$)",
    re.I,
)


def _noun_key(noun: str) -> str:
    noun = noun.lower()
    if noun.endswith("ies"):
        return noun[:-3] + "y"
    return noun[:-1] if noun.endswith("s") and noun[:-1] in _TYPE_NOUNS else noun


def distinctive_tokens(title: str) -> list[str]:
    return [w for w in _WORD.findall(base_title(title).lower()) if w not in GENERIC and len(w) > 2]


def acronyms(title: str) -> set[str]:
    """Initials of a title ("General Data Protection Regulation" → gdpr, gdp), three letters or more."""
    words = [w for w in re.split(r"[\s/-]+", base_title(title).lower()) if w and w not in _STOP]
    found = {"".join(w[0] for w in words), "".join(w[0] for w in words if w not in GENERIC)}
    return {a for a in found if len(a) >= 3}


def _same_token(wanted: str, word: str) -> bool:
    """Fuzzy (rapidfuzz ≥ 85) for words; numbers and versions are never typos ("doc1" ≠ "doc")."""
    if re.sub(r"\D", "", wanted) != re.sub(r"\D", "", word):
        return False
    return fuzz.ratio(wanted, word) >= FUZZY_THRESHOLD


def _words(text: str) -> list[str]:
    """Lower-case words without possessives ("Deriv's" → "deriv")."""
    return [re.sub(r"'s$", "", w) for w in _WORD.findall(text.lower())]


def _matched_words(title: str, words: Sequence[str]) -> tuple[int, set[int]]:
    """(how many of the title's distinctive words the text has, which text words matched).

    Two adjacent words also count as one ("Doc 2" names "Doc2")."""
    found, used = 0, set()
    for wanted in distinctive_tokens(title):
        hits = {i for i, w in enumerate(words) if _same_token(wanted, w)}
        hits |= {j for i in range(len(words) - 1) if _same_token(wanted, words[i] + words[i + 1]) for j in (i, i + 1)}
        if hits:
            found += 1
            used |= hits
    return found, used


def title_match(title: str, text: str, *, strict: bool = False) -> tuple[float, bool]:
    """(share of the title's distinctive words found in the text, whether the match is certain).

    `strict`: only a (near-)verbatim title or its acronym counts — for questions, where a stray
    shared word must not narrow the search to the wrong document.
    """
    if fuzz.partial_ratio(base_title(title).lower(), text) >= SURE_THRESHOLD and len(base_title(title)) >= 4:
        return 1.0, True
    words = _words(text)
    if acronyms(title) & set(words):
        return 1.0, True
    wanted = [] if strict else distinctive_tokens(title)
    if not wanted:
        return 0.0, False
    found, _ = _matched_words(title, words)
    return found / len(wanted), found == len(wanted)


def _name_phrases(text: str) -> list[str]:
    """Noun phrases ending in a document word: "the travel policy", "the FSA guidelines"."""
    return [m.group(0) for m in _NAME_PHRASE.finditer(text)]


def _proper_name(phrase: str) -> bool:
    """A phrase that names something: a capitalised word or acronym besides the document noun."""
    words = phrase.split()[1:]
    return any(
        (w[0].isupper() or w[0].isdigit()) and not re.fullmatch(_NOUN, w, re.I) and w.lower() not in _STOP
        for w in words
    )


def _mentions(lowered: str, phrase: str) -> bool:
    return bool(re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", lowered))


def _bare_names(text: str) -> list[str]:
    """Capitalised words or acronyms after the first word, and words with digits ("Basel III", "Doc5")."""
    names = []
    for m in re.finditer(r"(?<!^)(?<![.!?]\s)\b([A-Z][\w&-]*(?:\s+[A-Z0-9][\w&-]*)*|[a-z]+\d[\w-]*)", text.strip()):
        if m.group(1).lower() not in _STOP and m.group(1) != "I":
            names.append(m.group(1))
    return names


@dataclass
class _Named:
    doc_id: str
    certain: bool
    used: set[int]


def _named(text: str, registry: dict[str, str], library: dict[str, str], strict: bool) -> tuple[list[_Named], list]:
    """Documents named in the text: (sure or distinct matches, tied candidates sharing the same words)."""
    lowered = text.lower()
    words = _words(lowered)
    titles = {**{d: t for t, d in registry.items()}, **library}
    sure: dict[str, _Named] = {}
    for title, doc_id in registry.items():
        for candidate in {title, base_title(title)}:
            if len(candidate) >= 3 and _mentions(lowered, candidate.lower()):
                sure[doc_id] = _Named(doc_id, True, _matched_words(title, words)[1])
    phrase_words = {w for p in _name_phrases(lowered) for w in _words(p)} if strict else set(words)
    partial: dict[str, _Named] = {}
    for doc_id, title in library.items():
        if doc_id in sure:
            continue
        share, certain = title_match(title, lowered, strict=strict)
        found, used = _matched_words(title, words)
        if certain:
            sure[doc_id] = _Named(doc_id, True, used)
        elif strict and found:
            # A question names a document only in a phrase like "the travel policy" (or "handbok").
            nouns = [w for w in _WORD.findall(base_title(title).lower()) if w in GENERIC and w not in _STOP]
            used = {
                i
                for i in used
                if words[i] in phrase_words or i + 1 < len(words) and any(_same_token(n, words[i + 1]) for n in nouns)
            }
            if used:
                partial[doc_id] = _Named(doc_id, False, used)
        elif share > 0:
            partial[doc_id] = _Named(doc_id, False, used)
    consumed = set().union(*(n.used for n in sure.values())) if sure else set()
    distinct, tied = [], []
    for named in partial.values():
        own = named.used - consumed
        if not own:
            continue
        shared = any(own & other.used for other in partial.values() if other.doc_id != named.doc_id)
        (tied if shared else distinct).append(named)
    for doc_id in _version_references(lowered, registry, library):
        sure.setdefault(doc_id, _Named(doc_id, True, set()))
    result, ties = _pick_versions([*sure.values(), *distinct], text, registry, titles, by_title=True)
    if not result and not ties:
        result, ties = _pick_versions(tied, text, registry, titles, by_title=False)
    elif tied:
        # Besides clearer names, a tie counts only where the text names its version ("Bank Negara 2025").
        result += _pick_versions(tied, text, {}, titles, by_title=False)[0] if len(tied) > 1 else []
    return result, ties


def _version_references(lowered: str, registry: dict[str, str], library: dict[str, str]) -> list[str]:
    """ "the 2025 version" (of a title the conversation has): that version from the user's documents."""
    bases = {base_title(t).lower() for t in registry}
    found = []
    for m in _VERSION_REF.finditer(lowered):
        version = (m.group(1) or m.group(2) or "").strip(".,;:!?")
        found += [d for d, t in library.items() if version_of(t) == version and base_title(t).lower() in bases]
    return found


def _pick_versions(
    named: list[_Named], text: str, registry: dict[str, str], titles: dict[str, str], *, by_title: bool
) -> tuple[list[_Named], list[_Named]]:
    """(kept, tied): of several versions of one title (`by_title`) or several documents sharing the
    matched words, keep those whose version the text names, else those already in the conversation;
    what is left with more than one document is a tie for the user to choose from."""
    lowered = text.lower()
    groups: dict[str, list[_Named]] = {}
    for n in named:
        groups.setdefault(base_title(titles[n.doc_id]).lower() if by_title else "*", []).append(n)
    in_registry = set(registry.values())
    kept: list[_Named] = []
    tied: list[_Named] = []
    for group in groups.values():
        if len(group) > 1:
            by_version = [n for n in group if (v := version_of(titles[n.doc_id])) and _mentions(lowered, v)]
            known = [n for n in group if n.doc_id in in_registry]
            if by_version:
                group = by_version
            elif known and len(known) < len(group):
                group = known
            else:
                tied.extend(group)
                continue
        kept.extend(group)
    return kept, tied


@dataclass
class _Reference:
    count: int | None  # None: all of them
    kind: str | None  # a doc_type, "" for a document noun of any kind, None for a bare pronoun
    noun: str | None
    definite: bool  # "the policy" (several → a choice) rather than "that policy" (the latest)
    start: int
    position: int | None = None  # "the former" (-2), "the first one" (0)


def _references(text: str) -> list[_Reference]:
    refs: list[_Reference] = []
    taken: list[tuple[int, int]] = []
    for m in _POSITIONAL.finditer(text):
        noun = _noun_key(m.group(m.lastindex or 0)) if (m.lastindex or 0) > 1 else None
        kind = _TYPE_NOUNS.get(noun) if noun else None
        refs.append(_Reference(1, kind or None, noun, False, m.start(), _POSITIONS[m.group("pos").lower()]))
        taken.append(m.span())
    for m in _TYPED.finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        det, noun = m.group("det").lower(), m.group(m.lastindex or 0).lower()
        key = _noun_key(noun)
        plural = noun != key
        count_word = next((w for w in det.split() if w in _NUMBER_WORDS), None)
        if det.startswith("all") and not count_word:
            count = None
        elif count_word:
            count = _NUMBER_WORDS[count_word]
        else:
            count = None if plural else 1
        kind = _TYPE_NOUNS.get(key)
        refs.append(_Reference(count, "" if kind is None else kind, key, det in {"the", "our"}, m.start()))
        taken.append(m.span())
    for m in _PLURAL_PRONOUN.finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        words = m.group("ref").lower().split()
        count_word = next((w for w in words if w in _NUMBER_WORDS and w != "both"), None)
        if words[0] == "all":
            count = _NUMBER_WORDS[count_word] if count_word else None
        else:
            count = _NUMBER_WORDS.get(count_word or "", 2)
        refs.append(_Reference(count, None, None, False, m.start()))
        taken.append(m.span())
    for m in _SINGULAR_PRONOUN.finditer(text):
        start = m.start("subject") if m.group("subject") else m.start()
        if not any(a <= start < b for a, b in taken):
            refs.append(_Reference(1, None, None, False, start))
    return sorted(refs, key=lambda r: r.start)


def _of_kind(doc_id: str, ref: _Reference, titles: dict[str, str], doc_types: dict[str, str]) -> bool:
    if not ref.kind:
        return True
    if doc_types.get(doc_id) == ref.kind:
        return True
    title_words = {_noun_key(w) for w in _WORD.findall(base_title(titles.get(doc_id, "")).lower())}
    return ref.noun in title_words


def resolve_documents(
    text: str,
    registry: dict[str, str],
    library: dict[str, str],
    *,
    strict: bool = False,
    action: str | None = None,
    tagged: Sequence[str] | None = None,
    doc_types: dict[str, str] | None = None,
) -> DocMatch:
    """`registry`: {display title: id} from earlier turns (oldest first); `library`: {id: display title}.

    `strict`: questions name a document only by its (near-)verbatim title, its acronym or a
    phrase like "the travel policy". `action`: the action's document shape (compare wants two).
    `tagged`: ids the user tagged (the hybrid mode: references then mean other documents).
    `doc_types`: {id: doc_type} for typed references ("the regulation").
    """
    tagged = list(dict.fromkeys(tagged or []))
    doc_types = doc_types or {}
    titles = {**{d: t for t, d in registry.items()}, **library}
    named, tied = _named(text, registry, library, strict)
    quoted = {d for t, d in registry.items() if _mentions(text.lower(), base_title(t).lower())}
    ids = list(dict.fromkeys([*tagged, *(n.doc_id for n in named)]))
    sources: list[tuple[str, str]] = []
    for n in named:
        if n.doc_id in quoted:
            sources.append(("inferred", "high"))
        else:
            sources.append(("fuzzy_match", "high" if n.certain else "medium"))
    candidates: list[tuple[str, str]] = [(n.doc_id, titles[n.doc_id]) for n in tied]
    if 1 < len(tied) <= MAX_DOCS and not named and (action == "compare" or _PLURAL_NOUN.search(text)):
        # "Compare the Bank Negara guidelines", "the Northwind policies": all of the tie is meant.
        ids.extend(n.doc_id for n in tied if n.doc_id not in ids)
        candidates = []

    if tied:
        sources.append(("fuzzy_match", "medium"))
    pool = [d for d in registry.values() if d not in ids]
    for ref in _references(text):
        generic = not ref.kind
        if generic and tagged and ref.count != 1 and (ref.count or len(tagged)) <= len(tagged):
            continue  # "these two docs" with two documents tagged: the tagged ones
        if generic and ref.count == 1 and (tagged or named) and action not in ("compare", "audit"):
            continue  # "summarize @Policy and explain it": the named document
        if ref.kind and len(tagged) >= 2 and any(_of_kind(d, ref, titles, doc_types) for d in tagged):
            # "Audit @Email against the guideline" with the guideline tagged too: it means that one.
            continue
        fits = [d for d in pool if _of_kind(d, ref, titles, doc_types)]
        if ref.kind and not fits and not registry:
            fits = [d for d in library if d not in ids and _of_kind(d, ref, titles, doc_types)]
        if not fits:
            continue
        if ref.position is not None:
            if ref.position == -2 and len(fits) < 2 or ref.position >= len(fits):
                continue
            chosen = [fits[ref.position]]
        elif ref.count is None:
            chosen = fits[-MAX_DOCS:]
        elif ref.definite and ref.kind and ref.count == 1 and len(fits) > 1:
            if not candidates:
                candidates = [(d, titles[d]) for d in fits]
                sources.append(("inferred", "medium"))
            continue
        else:
            chosen = fits[-ref.count :]
        ids.extend(d for d in chosen if d not in ids)
        pool = [d for d in pool if d not in chosen]
        # One clear match for the reference among the conversation's documents: the seeds' high tier.
        sources.append(("inferred", "high"))

    if not ids and not candidates and registry:
        wanted = {"compare": 2, "summarize": 1, "audit": 1}.get(action or "", 0)
        if _LOCATOR.search(text):
            wanted = max(wanted, 1)
        if wanted and len(registry) >= wanted:
            ids = list(registry.values())[-wanted:]
            sources.append(("inferred", "medium"))

    resolved = {d for d in ids} | {d for d, _ in candidates}
    unresolved = []
    for phrase in _name_phrases(text):
        if not _proper_name(phrase):
            continue
        hit = any(title_match(titles[d], phrase.lower())[0] > 0 for d in library)
        if not hit and not any(base_title(titles[d]).lower() in phrase.lower() for d in resolved):
            unresolved.append(re.sub(r"^(?:the|our|a|an)\s+", "", phrase, flags=re.I))
    if not resolved and not unresolved and action in ("summarize", "compare", "audit"):
        # An action that needs a document, and a name that is none of the user's: "Summarize Doc5".
        unresolved = _bare_names(text)

    if not sources:
        if tagged:
            return DocMatch(ids=ids, source="explicit", confidence="high", unresolved=unresolved)
        return DocMatch(unresolved=unresolved)
    source = "fuzzy_match" if any(s == "fuzzy_match" for s, _ in sources) else "inferred"
    confidence = min((c for _, c in sources), key=_CONFIDENCE_ORDER.__getitem__)
    if candidates or unresolved:
        confidence = "medium" if candidates else "low"
    return DocMatch(ids=ids, source=source, confidence=confidence, candidates=candidates, unresolved=unresolved)
