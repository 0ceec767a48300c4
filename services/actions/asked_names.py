"""Whether a question asks who, or which named thing, and whether a sentence says (issue #27, honest confidence).

The sibling of quantities.py for the other common kind of answer. "Which cloud provider does
Northwind use for backups?" over a standard that "applies to every cloud service that stores or
processes Northwind data", or "Who is the fund manager of Growth Plus?" over an e-mail that names
the fund and no one else: the sentences that hold the question's words name nobody, so the passages
are about its subject but do not answer it, and the evidence is "low" (services/actions/evidence.py).
A question asks for:
- **someone** when it opens with "who", "whom" or "whose" (also "to whom", "by whom"): a sentence
  says who with a name, or a word for people or bodies ("all employees", "the security team", "the
  supervisory authority", "you") that the question does not use itself. A "who" inside the question
  ("an employee who breaches the policy") is a relative pronoun and asks nothing;
- **a name** when it asks who someone is ("Who is the licence steward…", "Who are the copyright
  holders…": the question already gives the role) or which one of a kind that has proper names (a
  provider, vendor, company, bank, country, state, jurisdiction, court, regulator, auditor, law):
  a sentence names one when it holds a name the question does not.

A name, read without a tagger: an acronym ("CISO", "AWS"); a capitalised word the English lexicon
does not know ("Virginia", "Mozilla"), or a run of two or more capitalised words ("Data Protection
Officer", "Amazon Web Services"). A single capitalised common word is a defined term or a heading's
("the Licensor", "this License"), and a sentence's first word, a function word after a colon or a
reference ("Section 9", "Note 5") is capitalised for another reason. Set on the dev split of
examples/eval and its unanswerable probe (docs/answers-on-real-documents.md).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from lemminflect import getAllLemmas

Kind = Literal["someone", "name"]

_ASKS_WHO = re.compile(r"^\W*(?:(?:to|by|from|for|with|of)\s+)?(?:who|whom|whose)\b", re.I)
_ASKS_WHO_IS = re.compile(
    r"^\W*who\s+(?:is|are|was|were)\s+(?:the|its|their|our|your|this|that|these|those|a|an)\b", re.I
)
_NAMED_KINDS = (
    r"providers?|vendors?|suppliers?|compan(?:y|ies)|firms?|banks?|countr(?:y|ies)|nations?|states?|"
    r"jurisdictions?|cit(?:y|ies)|courts?|regulators?|auditors?|laws?"
)
_ASKS_WHICH_NAMED = re.compile(rf"\b(?:which|what)\s+(?:[\w-]+\s+)?(?:{_NAMED_KINDS})(?:'s|’s)?\b", re.I)

# Words for people and bodies: what a "who" question is answered with when no one is named.
_SOMEONE = frozenset(
    (
        *("people", "person", "persons", "individual", "individuals", "everyone", "anyone", "nobody", "you", "we"),
        *("they", "employee", "employees", "staff", "worker", "workers", "personnel", "manager", "managers"),
        *("officer", "officers", "director", "directors", "head", "owner", "owners", "administrator"),
        *("administrators", "controller", "controllers", "processor", "processors", "team", "teams"),
        *("department", "departments", "board", "committee", "council", "authority", "authorities"),
        *("regulator", "regulators", "supervisor", "supervisors", "auditor", "auditors", "agent", "agents"),
        *("representative", "representatives", "member", "members", "partner", "partners", "vendor"),
        *("vendors", "supplier", "suppliers", "provider", "providers", "contractor", "contractors"),
        *("consultant", "consultants", "customer", "customers", "client", "clients", "user", "users"),
        *("holder", "holders", "licensee", "licensees", "licensor", "licensors", "contributor"),
        *("contributors", "author", "authors", "party", "parties", "company", "companies", "firm", "firms"),
        *("organisation", "organisations", "organization", "organizations", "entity", "entities"),
        *("government", "court", "courts", "agency", "agencies", "commission", "bank", "banks"),
        *("institution", "institutions", "issuer", "trustee", "trustees", "executive", "executives"),
        *("chair", "president", "secretary", "counsel", "lawyer", "lawyers", "accountant", "accountants"),
        *("developer", "developers", "operator", "operators", "recipient", "recipients", "applicant"),
        *("applicants", "investor", "investors", "shareholder", "shareholders", "stockholders", "subject"),
        *("subjects", "steward", "maintainer", "maintainers", "publisher", "publishers"),
    )
)
_REFERENCES = frozenset(
    (
        *("section", "sections", "article", "articles", "note", "notes", "item", "items", "part", "parts"),
        *("chapter", "schedule", "appendix", "exhibit", "annex", "table", "figure", "page", "clause"),
        *("paragraph", "rule", "form", "version", "step"),
    )
)
# Words the lexicon of nouns, verbs and adjectives does not hold, capitalised after a colon or in a title.
_FUNCTION_WORDS = frozenset(
    (
        *("the", "a", "an", "every", "each", "all", "any", "some", "no", "this", "that", "these", "those"),
        *("and", "or", "but", "nor", "if", "when", "where", "which", "who", "what", "in", "on", "at", "of"),
        *("for", "to", "by", "with", "from", "as", "it", "its", "we", "you", "they", "he", "she", "our"),
        *("your", "their", "his", "her", "there", "not", "so", "such", "both", "either", "neither", "after"),
        *("before", "upon", "under", "within", "without", "unless", "until", "while", "although", "because"),
    )
)
_WORD = re.compile(r"[A-Za-z0-9][\w&’'-]*")
_ACRONYM = re.compile(r"[A-Z][A-Z0-9&]+s?")


def asked_name(question: str) -> Kind | None:
    """What kind of who or which the question asks for; None when it asks neither."""
    if _ASKS_WHO_IS.search(question) or _ASKS_WHICH_NAMED.search(question):
        return "name"
    return "someone" if _ASKS_WHO.search(question) else None


def names(kind: Kind, sentence: str, question: str) -> bool:
    """Whether the sentence says who or which: a name the question does not hold, or for `someone`
    also a word for people or bodies that it does not use."""
    asked = _forms(question)
    words = [m.group() for m in _WORD.finditer(sentence)]
    fresh = [i for i, word in enumerate(words) if _form(word) not in asked]
    if any(_is_name(words, i) for i in fresh):
        return True
    return kind == "someone" and any(words[i].lower() in _SOMEONE for i in fresh)


@lru_cache(maxsize=256)
def _forms(question: str) -> frozenset[str]:
    """The question's words as compared (`_form`): read once for all the sentences judged against it."""
    return frozenset(_form(word) for word in _WORD.findall(question))


def _form(word: str) -> str:
    """The word as compared with the question's: lower case, without a possessive or a plural's "s"."""
    word = re.sub(r"['’]s$", "", word.lower())
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _capitalised(word: str) -> bool:
    return word[:1].isupper()


def _is_name(words: list[str], i: int) -> bool:
    word = words[i]
    if _ACRONYM.fullmatch(word) and len(word.rstrip("s")) >= 2:
        return True
    if i == 0 or not _capitalised(word) or word.lower() in _FUNCTION_WORDS or _is_reference(words, i):
        return False
    if not getAllLemmas(word.lower()):
        return True
    return any(0 < j < len(words) and _capitalised(words[j]) and not _is_reference(words, j) for j in (i - 1, i + 1))


def _is_reference(words: list[str], i: int) -> bool:
    """"Section 9", "Note 5", "Item 1A": capitalised because it points somewhere, not because it names."""
    following = words[i + 1] if i + 1 < len(words) else ""
    return words[i].lower() in _REFERENCES and (not following or following[:1].isdigit() or len(following) <= 2)
