"""Where a FAQ's questions cut a document, so each question and its answer are one chunk's worth.

A help centre's FAQ prints a question on a line of its own and its answer under it; a page of them
is a few hundred characters a topic. Packed greedily into 1,000-character chunks, four topics
share one chunk, whose one vector sits far from each of them: "Which payment methods do you
accept?" asked of the whole library fell under the similarity floor although a chunk held the
question word for word (issue #27, the twenty-first round's FAQ). Cut at the questions, each topic
is embedded on its own, as its reader asks it.

A question is a block of its own (the parser separates blocks by a blank line) that opens with a
capital and ends with "?", holds one sentence, and is followed by a block that is not one: an
answer. A run of questions (a list of them, a table of contents) cuts nothing, nor does a
rhetorical question inside prose, which shares its block with other sentences. Documents without
such blocks (filings, regulations, most policies) are chunked exactly as before.
"""

from __future__ import annotations

import re

BLOCK_SEP = "\n\n"
# A question is short: a longer single "sentence" ending in "?" is prose the parser ran together.
MAX_QUESTION_CHARS = 200
# What comes before a FAQ's first question joins its section when shorter (a title).
MIN_SECTION_CHARS = 150
# "Q:", "Q1.", "3." or "3)" before a question: its number in the FAQ, not a sentence of its own.
_MARKER = re.compile(r"^(?:Q\d*[.:)]|\d{1,3}[.)])\s+")
# A sentence end inside the block: then it is not a question standing alone.
_INNER_END = re.compile(r"[.!?][\"')\]]*\s")


def is_question(block: str) -> bool:
    """A block that is one question standing alone."""
    block = _MARKER.sub("", block.strip())
    return (
        block.endswith("?")
        and block[:1].isupper()
        and len(block) <= MAX_QUESTION_CHARS
        and "\n" not in block
        and not _INNER_END.search(block[:-1])
    )


def _blocks(text: str) -> list[tuple[int, str]]:
    """(offset, block) for each block of `text`, in order."""
    out, offset = [], 0
    for block in text.split(BLOCK_SEP):
        if block.strip():
            out.append((offset, block))
        offset += len(block) + len(BLOCK_SEP)
    return out


def question_starts(text: str) -> list[int]:
    """Offsets of the questions that open an answer: where a FAQ's sections begin."""
    blocks = _blocks(text)
    return [
        offset
        for (offset, block), (_, following) in zip(blocks, blocks[1:], strict=False)
        if is_question(block) and not is_question(following)
    ]


def sections(text: str, min_chars: int = MIN_SECTION_CHARS) -> list[tuple[int, int]]:
    """`text` cut at its questions into (start, end) spans covering it. What comes before the first
    question joins its section when shorter than `min_chars` (a FAQ's title), so no chunk is a title
    alone; a short answer keeps its own."""
    cuts = question_starts(text)
    if cuts and cuts[0] < min_chars:
        cuts = cuts[1:]
    bounds = [0, *cuts, len(text)]
    return [(start, end) for start, end in zip(bounds, bounds[1:], strict=False) if start < end]
