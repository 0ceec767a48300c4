"""Requirement clauses: what a user pastes into an audit request, and the words that make one binding.

The resolver uses them to tell an audit against pasted rules from one against a document; the
audit action checks each clause; the offline engine's clause rules share the obligation words.
"""

from __future__ import annotations

import re

from shared.text.sentences import split_sentences

OBLIGATION = re.compile(r"\b(must|shall|required|mandatory|is obliged|are obliged|will)\b", re.I)
COMMAND = re.compile(r"^\s*(please\s+)?(audit|check|review|verify|assess|compare)\b", re.I)


def requirement_sentences(text: str) -> list[str]:
    """Requirement clauses in a user's audit request: what follows a colon, minus command sentences.

    All of them: how many one audit checks is the audit's limit (PP_AUDIT_MAX_REQUIREMENTS), and the
    audit names the ones past it rather than dropping them silently."""
    body = text.split(":", 1)[1] if ":" in text else text
    return [s for s in split_sentences(body) if not (COMMAND.match(s) and not OBLIGATION.search(s))]
