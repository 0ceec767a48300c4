"""Sentences of a passage: the unit that answers quote, cite and compare.

Heading lines are cut off rather than glued to the next sentence, and fragments too short to
stand on their own are dropped, so that every sentence reads as a statement of the document. A
sentence the layout broke into two blocks of one page is read whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from shared.text.tables import MAX_ROW_CHARS, printed_parts, row_parts, word_row_parts

# A full stop after a name's initial or a title ("I, Andrew R. Jassy, certify", "Mr. Cook", "Registration
# No. 333-…") ends no sentence; one after an abbreviation's last letter ("in the U.S. The") may.
SENTENCE_END = re.compile(
    r"(?<=[.!?;])(?<![\s(][A-Z]\.)(?<!\bM[rs]\.)(?<!\bMrs\.)(?<!\bDr\.)(?<!\bNo\.)(?<!\bNos\.)(?<!\bvs\.)"
    r"\s+(?=[\"'(\[]?[A-Z0-9])|\n{2,}"
)
MIN_SENTENCE_CHARS = 25
HEADING_ONLY = re.compile(r"^[\d.\s]*[A-Z][^.!?]{0,60}$")
HEADING_LINE = re.compile(r"^[^\n]{1,80}[^.!?:;,\s]\n(?=[A-Z])", re.M)
# A heading run into its paragraph on one line ("How Your Personal Information is Protected Online To
# prevent unauthorized access, …"), as real policies' text often arrives (issue #27, PolicyQA dev):
# title-case words, then the capitalised word that opens an ordinary clause (a pronoun, article or
# conjunction followed by lower-case words, so a title-case subject such as "The Company and Its
# Affiliates may" stays). The heading names a topic; the answer is the clause.
RUN_IN_HEADING = re.compile(
    r"^(?P<heading>(?:[A-Z0-9][\w'’&/-]*|of|the|and|or|to|for|in|on|a|an|is|are|with|about|we|you)"
    r"(?:\s+(?:[A-Z0-9][\w'’&/-]*|of|the|and|or|to|for|in|on|a|an|is|are|with|about|we|you)){2,11})"
    r"\s+(?=(?:To|You|Your|We|Our|The|This|These|If|When|Where|In|Any|All|Each|It|They|As|For|Please|Unless|By)"
    r"\s+[a-z]+\s+[a-z]+)"
)
TITLE_SHARE = 0.6
# Numbered steps run together in one block, as MuPDF reads a markdown or HTML list ("1. Go to
# Settings > Billing 2. Click "Cancel subscription" 3. …"): the steps end without a full stop, so
# sentence ends fall after the next step's number ("Go to Settings > Billing 2.") and a short step
# is dropped as a fragment. Such a list is one piece, read in order, up to MAX_STEPS_CHARS. A
# numbered run of full sentences (a filing's footnotes: "… net revenues. 2. ROE and …") is not one.
STEPS = re.compile(r"^1[.)]\s.*?[^.!?;:\s]\s2[.)]\s", re.S)
MAX_STEPS_CHARS = 600


class HasText(Protocol):
    @property
    def text(self) -> str: ...


@dataclass(frozen=True)
class Sentence:
    """A sentence and the index of the passage it came from (its citation).

    `alone`: read out of one line of the passage rather than in its order (a row printed in a
    statement's text, shared/llm/offline/rows.py), so it is quoted on its own: the sentence listed
    next to it is not the text next to it on the page. Such a row's `years_line` is the line of years
    printed over its table's columns, when the passage holds one above it.
    """

    chunk_index: int
    text: str
    alone: bool = False
    # The tail of a sentence cut before it (`starts_inside`): it says nothing whole.
    tail: bool = False
    # A row printed under a line of years heading its table's columns: that line (years.column_years).
    years_line: str = ""
    # The sentences before and after it in its document, where known (indices of the candidate list;
    # `next_in_document`): overlapping passages hold a sentence twice and it is read from one of
    # them, so the passage it was not read from continues in another passage's sentences.
    before: int | None = None
    after: int | None = None


def next_in_document(sentences: Sequence[Sentence], index: int) -> int | None:
    """The sentence after sentence `index` in its document: its known successor, else the next one
    listed from its passage; None at a passage's end or for a sentence read alone."""
    sentence = sentences[index]
    if sentence.after is not None:
        return sentence.after
    return _listed_beside(sentences, index, index + 1)


def previous_in_document(sentences: Sequence[Sentence], index: int) -> int | None:
    """The sentence before sentence `index` in its document (the mirror of `next_in_document`)."""
    sentence = sentences[index]
    if sentence.before is not None:
        return sentence.before
    return _listed_beside(sentences, index, index - 1)


def walk(sentences: Sequence[Sentence], index: int, *, limit: int, backwards: bool = False) -> list[int]:
    """Up to `limit` sentences after (or before) sentence `index` in its document, nearest first."""
    step = previous_in_document if backwards else next_in_document
    out: list[int] = []
    nxt = step(sentences, index)
    while nxt is not None and len(out) < limit and nxt != index and nxt not in out:
        out.append(nxt)
        nxt = step(sentences, nxt)
    return out


def _listed_beside(sentences: Sequence[Sentence], index: int, other: int) -> int | None:
    inside = 0 <= other < len(sentences) and sentences[other].chunk_index == sentences[index].chunk_index
    return other if inside and not (sentences[index].alone or sentences[other].alone) else None


def without_run_in_heading(sentence: str) -> str:
    """The sentence without a title-case heading run into its start (unchanged when there is none)."""
    match = RUN_IN_HEADING.match(sentence)
    if not match:
        return sentence
    words = match.group("heading").split()
    rest = sentence[match.end() :]
    titled = sum(w[0].isupper() or w[0].isdigit() for w in words)
    return rest if titled >= TITLE_SHARE * len(words) and len(rest) >= MIN_SENTENCE_CHARS else sentence


def split_sentences(text: str, page_breaks: Sequence[int] = ()) -> list[str]:
    """Sentences of a chunk; short heading lines are cut off rather than glued to the next sentence.
    `page_breaks`: where later pages start in `text`; no sentence is joined across one."""
    marked = HEADING_LINE.sub(lambda m: m.group(0)[:-1] + "\n\n", _mark_pages(text, page_breaks))
    flat = re.sub(r"(?<!\n)[ \t]*\n[ \t]*(?!\n)", " ", marked)
    parts = (without_run_in_heading(re.sub(r"\s+", " ", p.strip())) for p in _pieces(flat))
    return [p for p in parts if len(p) >= MIN_SENTENCE_CHARS and not HEADING_ONLY.match(p)]


# Where a page starts, marked with a character the splitting reads as whitespace (a form feed, as a
# printer's page break), so that a paragraph can tell it opens a page.
PAGE_MARK = "\f"


def _mark_pages(text: str, page_breaks: Sequence[int]) -> str:
    cuts = [0, *page_breaks, len(text)]
    return PAGE_MARK.join(text[a:b] for a, b in zip(cuts, cuts[1:], strict=False))


def _pieces(flat: str) -> list[str]:
    """The text cut at sentence ends; a table row's sentence is one piece, whatever full stops its
    headers hold ("2023 vs. 2022 Change: 17%"), and so is a short list of numbered steps or a row
    of words (its cells say what its sentences apply to)."""
    out: list[str] = []
    for paragraph in _joined(re.split(r"\n{2,}", flat)):
        line = " ".join(paragraph.split())
        whole = row_parts(line) or _steps(paragraph.strip()) or len(line) <= MAX_ROW_CHARS and word_row_parts(line)
        out.extend([paragraph] if whole else SENTENCE_END.split(paragraph))
    return out


def _steps(paragraph: str) -> bool:
    return len(paragraph) <= MAX_STEPS_CHARS and STEPS.match(paragraph) is not None


# A passage may start inside a sentence: a paragraph longer than a chunk is cut at its printed lines,
# or inside a sentence longer than a chunk at its clauses (services/ingest/chunker.py): "inflation,
# interest rates, regional labor market constraints, …". And a sentence printed over a page break (or
# around a table, or a column's end) arrives as two paragraphs: "… principal repayments of" / "payments of
# short-term debt, and other, …". Sentences are cut only before a capital, so a piece that opens with a
# word in lower case (a name such as "iPhone" or "eBay" has a capital next; a path, an address or an
# identifier such as "src/java.desktop/…" in a notices file is no word) or with punctuation is such
# a tail: read alone it says nothing whole, and the sentence it ends is the answer only where it is whole.
_INSIDE = re.compile(r"^(?:[a-z][a-z'’-]*[,;:]?\s|[,;:)\]])")


def starts_inside(sentence: str) -> bool:
    """Whether a piece of a passage is the tail of a sentence cut before it (a table row never is)."""
    return _INSIDE.match(sentence) is not None and printed_parts(sentence) is None


# A sentence the reader's layout broke into two blocks of one page ("… that are not reflected on the" /
# "consolidated balance sheets and certain products …"; "… and 5.6" / "years as of March 31, 2023."):
# the first block ends on a word, a figure or a comma and is more than a heading or a page number, the second
# opens inside a sentence (`starts_inside`), and neither is a table row. Read as one paragraph, the
# sentence is whole; cut, its head passes for a sentence and its tail is set aside (a page break is
# never bridged: a quote is checked on the one page it cites). A run of a statement's rows whose label
# wraps ("Capital spending (5,318) (5,518) (5,207) … investments in noncontrolled affiliates and" /
# "purchases of intangible and other assets (256) (314) (873) …") is no sentence, and is read as the
# page prints it.
_OPEN_END = re.compile(r"[a-z0-9,]$")
_FIGURE_RUN = re.compile(r"\(?\$?\d(?:[\d,.]*\d)?\)?%?\s+\(?\$?\d")
MIN_HEAD_WORDS = 4


def _joined(paragraphs: list[str]) -> list[str]:
    out: list[str] = []
    for paragraph in paragraphs:
        if out and _continues(out[-1], paragraph):
            out[-1] = out[-1].rstrip() + " " + paragraph.lstrip()
        else:
            out.append(paragraph)
    return out


def _continues(block: str, paragraph: str) -> bool:
    """Whether `paragraph` is the rest of the sentence `block` ends inside, on the same page."""
    head, tail = " ".join(block.split()), " ".join(paragraph.split())
    return (
        not paragraph.lstrip(" \t\n").startswith(PAGE_MARK)
        and _OPEN_END.search(head) is not None
        and len(head.split()) >= MIN_HEAD_WORDS
        and not HEADING_ONLY.match(head)
        and starts_inside(tail)
        and printed_parts(head) is None
        and not any(_FIGURE_RUN.search(text) for text in (head, tail))
    )


def candidate_sentences(chunks: Sequence[HasText]) -> list[Sentence]:
    """Distinct sentences of the chunks, tagged with their chunk index (and whether each is a tail),
    each linked to its neighbours in its document across overlapping chunks."""
    seen: dict[str, int] = {}
    out: list[Sentence] = []
    before: dict[int, int] = {}
    after: dict[int, int] = {}
    # A chunk without a document (a web result, a message) links only its own sentences.
    documents = [getattr(chunk, "document_id", index) for index, chunk in enumerate(chunks)]
    for index, chunk in enumerate(chunks):
        previous: int | None = None
        # A chunk of a stored document knows its page breaks; a web result or a message has none.
        for text in split_sentences(chunk.text, getattr(chunk, "page_breaks", ())):
            key = text.lower()
            if key not in seen:
                seen[key] = len(out)
                out.append(Sentence(index, text, tail=starts_inside(text)))
            current = seen[key]
            # The same words read from another document (a shared notice) neighbour nothing of this one.
            if documents[out[current].chunk_index] != documents[index]:
                previous = None
                continue
            if previous is not None and current != previous:
                after.setdefault(previous, current)
                before.setdefault(current, previous)
            previous = current
    return [replace(s, before=before.get(i), after=after.get(i)) for i, s in enumerate(out)]
