"""Recency words: whether a message asks about the present state of things (web search helps).

A keyword scan the resolver runs on every message, whatever decided the action, so that a
question like "is this still enforced?" reaches the web even when the action came from a tag.
"""

from __future__ import annotations

import re
from datetime import date

# "latest", "recent", "current", "now", "today", the current and previous year, plus the nuanced
# recency phrasings ("Is this still enforced?", "What's happening with…"). A sentence-initial
# "now" ("now the regulation") is a discourse marker.
STALE_WORDS = re.compile(
    r"\b(latest|newest|recent|recently|current|currently|today|nowadays|up[- ]to[- ]date|"
    r"still (?:in force|in effect|enforced|valid|applicable|apply|applies|required|current|the case)|"
    r"(?:what's|what is) happening|been (?:amended|repealed|updated|replaced|superseded|revised|withdrawn)|"
    r"any (?:updates?|news|changes)|this year|as of|new (?:amendments?|updates?|guidance))\b",
    re.I,
)
NOW = re.compile(r"\bnow\b", re.I)
DISCOURSE_NOW = re.compile(r"(?:^|[.!?;]\s*)(?:ok(?:ay)?,?\s+|and\s+)?now\b", re.I)


def temporal_flag(text: str, today: date | None = None) -> bool:
    """Whether `text` uses a recency word or names this year or last (`today` pins the date)."""
    today = today or date.today()
    years = {str(today.year), str(today.year - 1)}
    if STALE_WORDS.search(text) or any(re.search(rf"\b{y}\b", text) for y in years):
        return True
    return len(NOW.findall(text)) > len(DISCOURSE_NOW.findall(text))
