"""Documents named in a message: a title quoted verbatim, its distinctive words (fuzzily), its
acronym, or a version; and names that match none of the user's documents (`unresolved`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from shared.llm.offline.documents.vocabulary import (
    GENERIC,
    MAX_DOCS,
    NOUN,
    STOP,
    WORD,
    Evidence,
    Request,
    base_title,
    distinctive_tokens,
    mentions,
    version_of,
    words,
)

FUZZY_THRESHOLD = 85
SURE_THRESHOLD = 95
_VERSION_REF = re.compile(r"\b(?:the\s+)?(\S+)\s+(?:version|edition|release)\b|\bversion\s+(\S+)", re.I)
_PLURAL_NOUN = re.compile(
    r"\b(?:policies|regulations|documents|docs|files|handbooks|versions|standards|procedures|acts)\b", re.I
)
_NAME_PHRASE = re.compile(
    rf"\b(?:the|our|a|an)\s+((?:(?:[A-Z0-9][\w&'./-]*|of|on|for|and)\s+){{0,5}}?{NOUN}(?:\s+\d[\w./-]*)?)"
    rf"(?=[\s.,;:!?)]|$)",
    re.I,
)


def acronyms(title: str) -> set[str]:
    """Initials of a title ("General Data Protection Regulation" → gdpr, gdp), three letters or more."""
    title_words = [w for w in re.split(r"[\s/-]+", base_title(title).lower()) if w and w not in STOP]
    found = {"".join(w[0] for w in title_words), "".join(w[0] for w in title_words if w not in GENERIC)}
    return {a for a in found if len(a) >= 3}


def _same_token(wanted: str, word: str) -> bool:
    """Fuzzy (rapidfuzz ≥ 85) for words; numbers and versions are never typos ("doc1" ≠ "doc")."""
    if re.sub(r"\D", "", wanted) != re.sub(r"\D", "", word):
        return False
    return fuzz.ratio(wanted, word) >= FUZZY_THRESHOLD


def _matched_words(title: str, text_words: Sequence[str]) -> tuple[int, set[int]]:
    """(how many of the title's distinctive words the text has, which text words matched).

    Two adjacent words also count as one ("Doc 2" names "Doc2")."""
    found, used = 0, set()
    for wanted in distinctive_tokens(title):
        hits = {i for i, w in enumerate(text_words) if _same_token(wanted, w)}
        hits |= {
            j
            for i in range(len(text_words) - 1)
            if _same_token(wanted, text_words[i] + text_words[i + 1])
            for j in (i, i + 1)
        }
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
    text_words = words(text)
    if acronyms(title) & set(text_words):
        return 1.0, True
    wanted = [] if strict else distinctive_tokens(title)
    if not wanted:
        return 0.0, False
    found, _ = _matched_words(title, text_words)
    return found / len(wanted), found == len(wanted)


def _name_phrases(text: str) -> list[str]:
    """Noun phrases ending in a document word: "the travel policy", "the FSA guidelines"."""
    return [m.group(0) for m in _NAME_PHRASE.finditer(text)]


def _phrase_support(title: str, phrases: Sequence[list[str]]) -> set[str]:
    """The words of the text's name phrases that name this title: those of a phrase at least half of
    whose own words (besides its article and document noun) are the title's. "the travel policy" names
    "Northwind Travel Policy"; "the public suffix list file" does not name "GNU General Public License"."""
    tokens = distinctive_tokens(title)
    support: set[str] = set()
    for phrase in phrases:
        own = [w for w in phrase[1:] if w not in STOP and w not in GENERIC and not re.fullmatch(NOUN, w)]
        matched = [w for w in own if any(_same_token(t, w) for t in tokens)]
        if matched and 2 * len(matched) >= len(own):
            support.update(matched)
    return support


def _proper_name(phrase: str) -> bool:
    """A phrase that names something: a capitalised word or acronym besides the document noun."""
    after_article = phrase.split()[1:]
    return any(
        (w[0].isupper() or w[0].isdigit()) and not re.fullmatch(NOUN, w, re.I) and w.lower() not in STOP
        for w in after_article
    )


def _bare_names(text: str) -> list[str]:
    """Capitalised words or acronyms after the first word, and words with digits ("Basel III", "Doc5")."""
    names = []
    for m in re.finditer(r"(?<!^)(?<![.!?]\s)\b([A-Z][\w&-]*(?:\s+[A-Z0-9][\w&-]*)*|[a-z]+\d[\w-]*)", text.strip()):
        if m.group(1).lower() not in STOP and m.group(1) != "I":
            names.append(m.group(1))
    return names


@dataclass
class _Named:
    doc_id: str
    certain: bool
    used: set[int]


def _library_match(
    title: str, doc_id: str, lowered: str, text_words: list[str], phrases: list[list[str]], strict: bool
) -> _Named | None:
    """A library document the text names, certainly or by some of its words (None: not at all)."""
    share, certain = title_match(title, lowered, strict=strict)
    found, used = _matched_words(title, text_words)
    if certain:
        return _Named(doc_id, True, used)
    if strict and found:
        # A question names a document only in a phrase like "the travel policy" (or "handbok").
        nouns = [w for w in WORD.findall(base_title(title).lower()) if w in GENERIC and w not in STOP]
        support = _phrase_support(title, phrases)
        used = {
            i
            for i in used
            if text_words[i] in support
            or i + 1 < len(text_words)
            and any(_same_token(n, text_words[i + 1]) for n in nouns)
        }
        return _Named(doc_id, False, used) if used else None
    return _Named(doc_id, False, used) if share > 0 else None


def _named(request: Request) -> tuple[list[_Named], list[_Named]]:
    """Documents named in the text: (sure or distinct matches, tied candidates sharing the same words)."""
    text, registry, library = request.text, request.registry, request.library
    lowered = text.lower()
    text_words = words(lowered)
    phrases = [words(p) for p in _name_phrases(lowered)] if request.strict else []
    sure: dict[str, _Named] = {}
    for title, doc_id in registry.items():
        for candidate in {title, base_title(title)}:
            if len(candidate) >= 3 and mentions(lowered, candidate.lower()):
                sure[doc_id] = _Named(doc_id, True, _matched_words(title, text_words)[1])
    partial: dict[str, _Named] = {}
    for doc_id, title in library.items():
        if doc_id in sure:
            continue
        match = _library_match(title, doc_id, lowered, text_words, phrases, request.strict)
        if match is not None:
            (sure if match.certain else partial)[doc_id] = match
    consumed = set().union(*(n.used for n in sure.values())) if sure else set()
    distinct: list[_Named] = []
    tied: list[_Named] = []
    for named in partial.values():
        own = named.used - consumed
        # "the data retention policy" names "Data Retention Policy" more than "… Personal Data …".
        if not own or any(own < other.used - consumed for other in partial.values()):
            continue
        shared = any(own & other.used for other in partial.values() if other.doc_id != named.doc_id)
        (tied if shared else distinct).append(named)
    for doc_id in _version_references(lowered, registry, library):
        sure.setdefault(doc_id, _Named(doc_id, True, set()))
    titles = request.titles
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
            by_version = [n for n in group if (v := version_of(titles[n.doc_id])) and mentions(lowered, v)]
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


def name_evidence(request: Request) -> Evidence:
    """The tagged documents and those the text names; a tie of equally named ones is a choice,
    unless the request wants all of them ("Compare the Bank Negara guidelines")."""
    named, tied = _named(request)
    text, titles = request.text, request.titles
    quoted = {d for t, d in request.registry.items() if mentions(text.lower(), base_title(t).lower())}
    evidence = Evidence(ids=list(dict.fromkeys([*request.tagged, *(n.doc_id for n in named)])), named=bool(named))
    for n in named:
        if n.doc_id in quoted:
            evidence.sources.append(("inferred", "high"))
        else:
            evidence.sources.append(("fuzzy_match", "high" if n.certain else "medium"))
    evidence.candidates = [(n.doc_id, titles[n.doc_id]) for n in tied]
    if 1 < len(tied) <= MAX_DOCS and not named and (request.action == "compare" or _PLURAL_NOUN.search(text)):
        # "Compare the Bank Negara guidelines", "the Northwind policies": all of the tie is meant.
        evidence.ids.extend(n.doc_id for n in tied if n.doc_id not in evidence.ids)
        evidence.candidates = []
    if tied:
        evidence.sources.append(("fuzzy_match", "medium"))
    return evidence


def unresolved_names(request: Request, evidence: Evidence) -> list[str]:
    """Names in the text that are none of the user's documents: the user is asked to tag them."""
    text, titles = request.text, request.titles
    resolved = set(evidence.ids) | {d for d, _ in evidence.candidates}
    unresolved = []
    for phrase in _name_phrases(text):
        if not _proper_name(phrase):
            continue
        hit = any(title_match(titles[d], phrase.lower())[0] > 0 for d in request.library)
        if not hit and not any(base_title(titles[d]).lower() in phrase.lower() for d in resolved):
            unresolved.append(re.sub(r"^(?:the|our|a|an)\s+", "", phrase, flags=re.I))
    if not resolved and not unresolved and request.action in ("summarize", "compare", "audit"):
        # An action that needs a document, and a name that is none of the user's: "Summarize Doc5".
        unresolved = _bare_names(text)
    return unresolved
