"""Where a FAQ's questions cut a document, so each question and its answer are one chunk's worth.

A help centre's FAQ prints a question on a line of its own and its answer under it; a page of them
is a few hundred characters a topic. Packed greedily into 1,000-character chunks, four topics
share one chunk, whose one vector sits far from each of them: "Which payment methods do you
accept?" asked of the whole library fell under the similarity floor although a chunk held the
question word for word (issue #27, the twenty-first round's FAQ). Cut at the questions, each topic
is embedded on its own, as its reader asks it.

The parser separates blocks by a blank line (services/ingest/parse.py). A question is a block that
opens with a capital (after a number such as "Q:", "3." or "1.2") and ends with "?": one sentence
standing alone, or any heading ("I forgot my password. How do I reset it?"). It opens a section
when the block after it is not a question too: an answer. A block holding both ("Q: … ? A: …", a
FAQ written without blank lines) opens one as well, and so does a question that ends a block of
answer sentences (an HTML definition list's next question). A heading just before a question (a
FAQ's category, "Billing") opens its section with it. A run of questions (a list, a table of
contents) cuts nothing, nor does a rhetorical question inside prose, which shares its block with
other sentences. Documents without such blocks (filings, regulations, most policies) are chunked
exactly as before: over the 67 documents of the benchmarks, one section is cut (an insider-trading
policy's "Who is Covered by this Policy?" in Apple's 10-K).
"""

from __future__ import annotations

import re
from collections.abc import Collection

BLOCK_SEP = "\n\n"
# A question is short: a longer single "sentence" ending in "?" is prose the parser ran together.
MAX_QUESTION_CHARS = 200
# What comes before a FAQ's first question joins its section when shorter (a title).
MIN_SECTION_CHARS = 150
# "Q:", "Q1.", "3.", "3)" or "1.2" before a question: its number in the FAQ, not a sentence of its own.
_MARKER = re.compile(r"^(?:Q\d*[.:)]|\d{1,3}(?:\.\d{1,3})*[.)]?)\s+")
# A sentence end inside the block: then it is not a question standing alone.
_INNER_END = re.compile(r"[.!?][\"')\]]*\s")
# A question and its answer in one block: "Q: How do I …? A: Go to …".
_QA_BLOCK = re.compile(r"^Q\d*[.:)]\s[^\n]{1,200}?\?\s+A\d*[.:)]\s")


def is_question(block: str, heading: bool = False) -> bool:
    """A block that is one question standing alone (a heading may hold more than one sentence)."""
    block = _MARKER.sub("", block.strip())
    return (
        block.endswith("?")
        and block[:1].isupper()
        and len(block) <= MAX_QUESTION_CHARS
        and "\n" not in block
        and (heading or not _INNER_END.search(block[:-1]))
    )


def _blocks(text: str) -> list[tuple[int, str]]:
    """(offset, block) for each block of `text`, in order."""
    out, offset = [], 0
    for block in text.split(BLOCK_SEP):
        if block.strip():
            out.append((offset, block))
        offset += len(block) + len(BLOCK_SEP)
    return out


def question_starts(text: str, headings: Collection[int] = ()) -> list[int]:
    """Offsets where a FAQ's sections begin: each question that opens an answer, or the heading
    just before it. `headings`: offsets of the blocks the parser read as headings."""
    blocks = _blocks(text)
    asks = [is_question(block, offset in headings) for offset, block in blocks]
    starts = []
    for i, (offset, block) in enumerate(blocks):
        answer_follows = i + 1 < len(blocks) and not asks[i + 1]
        if not asks[i] and answer_follows and (tail := _trailing_question(block)):
            starts.append(offset + tail)
            continue
        if not ((asks[i] and answer_follows) or _QA_BLOCK.match(block)):
            continue
        if i and blocks[i - 1][0] in headings and not asks[i - 1]:
            offset = blocks[i - 1][0]
        starts.append(offset)
    return starts


def _trailing_question(block: str) -> int:
    """Where a question standing alone at the end of a block starts (0: none). MuPDF reads an HTML
    definition list's answer and the next question as one block ("… valid for 30 minutes. Which
    payment methods do you accept?")."""
    body = block.rstrip()
    ends = list(_INNER_END.finditer(body[:-1]))
    if not ends or not body.endswith("?"):
        return 0
    start = ends[-1].end()
    return start if is_question(body[start:]) else 0


def sections(text: str, headings: Collection[int] = (), min_chars: int = MIN_SECTION_CHARS) -> list[tuple[int, int]]:
    """`text` cut at its questions into (start, end) spans covering it. What comes before the first
    question joins its section when shorter than `min_chars` (a FAQ's title), so no chunk is a title
    alone; a short answer keeps its own."""
    cuts = question_starts(text, headings)
    if cuts and cuts[0] < min_chars:
        cuts = cuts[1:]
    bounds = [0, *cuts, len(text)]
    return [(start, end) for start, end in zip(bounds, bounds[1:], strict=False) if start < end]
