"""Offline document resolution (task `doc_resolution`): which of the user's documents a message means.

In order: a title from the conversation's registry quoted verbatim; fuzzy title matching
(rapidfuzz ≥ 85 per distinctive word) against the user's ready documents; a reference back to
the conversation ("it", "those two docs") resolved from the registry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rapidfuzz import fuzz

FUZZY_THRESHOLD = 85
SURE_THRESHOLD = 95
_PLURAL_BACKREF = re.compile(
    r"\b(these|those|them|both|the (?:two|2|three|3|four|4|five|5) (?:docs?|documents?|policies|files|regulations))\b",
    re.I,
)
_SINGULAR_BACKREF = re.compile(r"\b(it|this|that|the (?:same )?(?:doc|document|policy|file|regulation))\b", re.I)
_COUNT_WORDS = {"two": 2, "2": 2, "three": 3, "3": 3, "four": 4, "4": 4, "five": 5, "5": 5, "both": 2}


@dataclass
class DocMatch:
    ids: list[str] = field(default_factory=list)
    source: str = "none"
    confidence: str = "low"
    candidates: list[tuple[str, str]] = field(default_factory=list)  # (id, display title) to choose from

    @property
    def ambiguous(self) -> bool:
        return len(self.candidates) > 1 and not self.ids


def base_title(display: str) -> str:
    """ "Title (Version)" → "Title"."""
    return re.sub(r"\s*\([^)]*\)\s*$", "", display).strip()


def _backref_count(text: str) -> int:
    plural = _PLURAL_BACKREF.search(text)
    if plural:
        words = plural.group(0).lower().split()
        return next((_COUNT_WORDS[w] for w in words if w in _COUNT_WORDS), 2)
    return 1 if _SINGULAR_BACKREF.search(text) else 0


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
        "handbook",
        "standard",
        "standards",
        "procedure",
        "procedures",
        "version",
        "extract",
        "training",
        "act",
    }
)
_WORD = re.compile(r"[a-z0-9][a-z0-9'-]*")


def distinctive_tokens(title: str) -> list[str]:
    return [w for w in _WORD.findall(base_title(title).lower()) if w not in GENERIC and len(w) > 2]


def title_match(title: str, text: str, *, strict: bool = False) -> tuple[float, bool]:
    """(share of the title's distinctive words found in the text, whether the match is certain).

    `strict`: only a (near-)verbatim title counts — for questions, where a stray shared word
    must not narrow the search to the wrong document.
    """
    if fuzz.partial_ratio(base_title(title).lower(), text) >= SURE_THRESHOLD and len(base_title(title)) >= 4:
        return 1.0, True
    wanted = [] if strict else distinctive_tokens(title)
    if not wanted:
        return 0.0, False
    words = _WORD.findall(text)
    found = sum(1 for w in wanted if any(fuzz.ratio(w, candidate) >= FUZZY_THRESHOLD for candidate in words))
    return found / len(wanted), found == len(wanted)


def resolve_documents(
    text: str, registry: dict[str, str], library: dict[str, str], *, strict: bool = False
) -> DocMatch:
    """`registry`: {display title: id} from earlier turns (oldest first); `library`: {id: display title}.

    Fuzzy matching works on a title's distinctive words (not "policy", "regulation"…): every one
    of them in the message is a sure match; some of them is a candidate. One best candidate
    resolves with medium confidence; a tie becomes a PalAssist choice.
    """
    lowered = text.lower()
    quoted = [d for title, d in registry.items() if title.lower() in lowered or base_title(title).lower() in lowered]
    if quoted:
        return DocMatch(ids=list(dict.fromkeys(quoted)), source="inferred", confidence="high")
    scored = [(title_match(title, lowered, strict=strict), doc_id, title) for doc_id, title in library.items()]
    sure = [(doc_id, title) for (share, certain), doc_id, title in scored if certain]
    if sure:
        return DocMatch(ids=[d for d, _ in sure], source="fuzzy_match", confidence="high")
    best = max((share for (share, _), _, _ in scored), default=0.0)
    partial = [(doc_id, title) for (share, _), doc_id, title in scored if share > 0 and share == best]
    if len(partial) == 1:
        return DocMatch(ids=[partial[0][0]], source="fuzzy_match", confidence="medium")
    if partial:
        return DocMatch(source="fuzzy_match", confidence="medium", candidates=partial)
    wanted = _backref_count(text)
    if wanted and registry:
        return DocMatch(ids=list(registry.values())[-wanted:], source="inferred", confidence="medium")
    return DocMatch()
