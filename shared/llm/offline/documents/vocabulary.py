"""The words and records every kind of document evidence speaks: titles, document nouns, the
request being resolved and the evidence gathered for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from shared.text.labels import base_title

MAX_DOCS = 5

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
STOP = frozenset({"a", "an", "and", "the", "of", "on", "for", "to", "in", "at", "by", "with", "our"})
WORD = re.compile(r"[a-z0-9][a-z0-9'-]*")

# Document nouns → the doc_types they name (None: any kind).
TYPE_NOUNS: dict[str, str | None] = {
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
NOUN = (
    r"(polic(?:y|ies)|regulations?|guidelines?|guidance|acts?|laws?|directives?|circulars?|notices?|frameworks?|"
    r"standards?|handbooks?|manuals?|guides?|procedures?|contracts?|docs?|documents?|files?)"
)


def version_of(display: str) -> str:
    """ "Title (Version)" → "version" (lower case; "" without one). A revision is labelled "v2"
    (shared/text/labels.py) but named "2" or "version 2", so its "v" is dropped."""
    found = re.search(r"\(([^)]*)\)\s*$", display)
    return re.sub(r"^v(?=\d)", "", found.group(1).strip().lower()) if found else ""


def noun_key(noun: str) -> str:
    """A document noun in the singular, as TYPE_NOUNS keys it ("policies" → "policy")."""
    noun = noun.lower()
    if noun.endswith("ies"):
        return noun[:-3] + "y"
    return noun[:-1] if noun.endswith("s") and noun[:-1] in TYPE_NOUNS else noun


def distinctive_tokens(title: str) -> list[str]:
    """The words of a title that tell it apart from others (no document nouns or stop words)."""
    return [w for w in WORD.findall(base_title(title).lower()) if w not in GENERIC and len(w) > 2]


def words(text: str) -> list[str]:
    """Lower-case words without possessives ("Deriv's" → "deriv")."""
    return [re.sub(r"'s$", "", w) for w in WORD.findall(text.lower())]


def mentions(lowered: str, phrase: str) -> bool:
    """Whether `phrase` occurs in `lowered` as whole words."""
    return bool(re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", lowered))


@dataclass(frozen=True)
class Request:
    """What is being resolved: the message and the documents it may mean.

    `registry`: {display title: id} from earlier turns (oldest first); `library`: {id: display
    title}; `titles`: {id: display title} over both; `doc_types`: {id: doc_type}; `tagged`: ids
    the user tagged; `action`: the action's document shape; `strict`: names must be near-verbatim.
    """

    text: str
    registry: dict[str, str]
    library: dict[str, str]
    titles: dict[str, str]
    doc_types: dict[str, str]
    tagged: list[str]
    action: str | None
    strict: bool


@dataclass
class Evidence:
    """What the kinds of evidence found so far: resolved ids, a choice to offer, and per finding
    its (source, confidence)."""

    ids: list[str]
    candidates: list[tuple[str, str]] = field(default_factory=list)  # (id, display title) to choose from
    sources: list[tuple[str, str]] = field(default_factory=list)
    named: bool = False  # the message names documents itself
