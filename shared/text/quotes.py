"""Quotes of a passage as a citation shows them: verbatim pieces, gaps marked, length bounded."""

from __future__ import annotations

QUOTE_LIMIT = 300
QUOTE_GAP = " … "


def quote_of(texts: list[str]) -> str:
    """Sentences of one passage as one quote; a gap between them is marked, so that every piece
    reads verbatim in the document (sentences that were not adjacent are not glued together)."""
    quote = QUOTE_GAP.join(texts)
    return quote if len(quote) <= QUOTE_LIMIT else quote[: QUOTE_LIMIT - 1].rsplit(" ", 1)[0] + "…"
