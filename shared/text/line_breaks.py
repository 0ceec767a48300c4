"""A compound a line's end broke after its hyphen, read as the page prints it (issue #27).

MuPDF joins the lines of a block with a space, so "asset-" at a line's end and "backed" on the next
line read "asset- backed": a quote shows a gap no reader sees on the page ("off- balance sheet",
"non- compliance", "broker- dealers"), and Postgres's parser loses the compound's own lexeme. The
hyphen stays: MuPDF's dehyphenation drops it ("assetbacked", "Forwardlooking"), which no page prints,
and the words of filings broken at a hyphen are compounds (a word-processor does not hyphenate).

The benchmarks check a quote against MuPDF's own page text with no space after a hyphen between
words on either side (`examples/eval/eval_set.py`, `normalise`), independently of this rule.
"""

from __future__ import annotations

import re

# A hyphen after a word, one space, then a word: the space is a line's end. Left alone: a suspended
# hyphen, which the page prints with its space ("short- and long-term", "pre- or post-tax", "one- to
# three-year"), and a credit rating ("rated A- by S&P", "BBB- rating").
_BROKEN = re.compile(r"\b([^\W\d_]+)[-\u2010] (?!(?:and|or|nor|to|through)\b)(?=[^\W\d_])")
_RATING = re.compile(r"[A-D]{1,3}")


def rejoined(text: str) -> str:
    """`text` (whitespace collapsed) with each compound broken at a line's end written whole."""
    return _BROKEN.sub(lambda m: m.group(0) if _RATING.fullmatch(m.group(1)) else m.group(0)[:-1], text)
