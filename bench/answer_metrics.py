"""Scoring one answer of the evaluation set (bench/answer_eval.py): pure functions over its text.

An answer *finds* its gold fact when the fact is in the answer's cited text (the answer with its
`[n]` markers, or a citation's quote). An answer sentence *bears on the question* when it lies in
the gold passage: the document text from one sentence-length before the fact to one after it
(`WINDOW` characters each side, around each place it occurs), so the fact's own sentence and its
immediate neighbours count and sentences about other matters do not. The notices a turn appends
(services/actions/format_response.py: the disclaimer a low answer must carry, what the documents
never mention) are not the answer's sentences: counting them made an honest answer less precise. Nor
is the lead that says the closest passages may not answer directly (services/actions/inquire.py,
whole_read.py): it ends in a colon, so it was read as one sentence with the first passage. A
citation is *verbatim* when every sentence of its quote appears on the cited page of the generated
PDF.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from examples.eval.eval_set import normalise
from shared.text.sentences import split_sentences

try:
    from shared.text.tables import printed_parts
except ImportError:  # a baseline commit from before rows of words (--baseline): rows of figures only
    try:
        from shared.text.tables import row_parts as printed_parts
    except ImportError:  # or from before table rows: none of its quotes is a row

        def printed_parts(text: str) -> list[str] | None:
            return None


WINDOW = 250
MARKER = re.compile(r"\s*\[\d{1,3}\]")
NOTICE = re.compile(r"^_[^\n]*_$", re.M)
NOTHING_FOUND = "i couldn't find anything relevant"
LEAD = re.compile(r"^The [\w ]+? not seem to answer this directly; the closest passages are:\s*")


def answer_sentences(response: str) -> list[str]:
    """The answer's sentences without citation markers, headings, list bullets and the turn's notices
    (a line in italics: "_Limited information available…_", which a low answer must carry)."""
    plain = LEAD.sub("", NOTICE.sub("", MARKER.sub("", response)))
    return [s for s in split_sentences(plain) if not s.startswith("**")]


def finds_fact(response: str, quotes: list[str], fact: str) -> bool:
    wanted = normalise(fact)
    texts = [MARKER.sub("", response), *quotes]
    return any(wanted in normalise(t) for t in texts)


def gold_window(document: str, fact: str) -> str:
    """The normalised document text around each of the fact's occurrences, one window a line ('' if
    absent). A fact a licence states twice ("your license … is reinstated") is answered by either."""
    wanted = normalise(fact)
    starts = [m.start() for m in re.finditer(re.escape(wanted), document)] if wanted else []
    return "\n".join(document[max(0, at - WINDOW) : at + len(wanted) + WINDOW] for at in starts)


def bears_on(sentence: str, window: str) -> bool:
    """The sentence is in the gold passage (a sentence cut at the window's edge still counts)."""
    text = normalise(sentence)
    if text in window:
        return True
    half = text[: max(20, len(text) // 2)]
    tail = text[-max(20, len(text) // 2) :]
    return half in window or tail in window


def precision(response: str, window: str) -> float | None:
    """Share of the answer's sentences that bear on the question; None for an empty answer."""
    sentences = answer_sentences(response)
    if not sentences:
        return None
    return sum(bears_on(s, window) for s in sentences) / len(sentences)


def squeeze(text: str) -> str:
    """A percentage sign a page sets apart from its figure ("35.4 %") joined to it."""
    return re.sub(r"\s+%", "%", text)


def piece_on_page(piece: str, page_text: str) -> bool:
    """A piece of a quote is on the (normalised) page: a table row is quoted with its headers, and
    what the page prints of it are its label and each cell, each found on its own. A row of a table
    without headers and of one cell besides its label ("Appendix A — Describes the security control
    frequencies.") reads as prose with a dash, so it is on the page verbatim or as its label and cell."""
    parts = printed_parts(piece)
    if parts:
        return all(squeeze(normalise(part)) in squeeze(page_text) for part in parts)
    if normalise(piece) in page_text:
        return True
    label, dash, cell = piece.partition(" — ")
    return bool(dash) and all(squeeze(normalise(part)) in squeeze(page_text) for part in (label, cell))


def quote_on_page(quote: str, page_text: str) -> bool:
    """Every piece of the quote (pieces are separated by '…', a cut-off end included) is on the
    (normalised) page."""
    pieces = [p.strip() for p in quote.split("…")]
    return all(piece_on_page(p, page_text) for p in pieces if p)


@dataclass(frozen=True)
class Outcome:
    """How a turn ended, as the user sees it."""

    nothing_found: bool
    low_confidence: bool
    cited: bool

    @property
    def honest_on_unanswerable(self) -> bool:
        return self.nothing_found or self.low_confidence or not self.cited


def outcome(response: str, citations: list[dict], confidence: str | None, asked_low: bool) -> Outcome:
    return Outcome(
        nothing_found=NOTHING_FOUND in normalise(response) and not citations,
        low_confidence=confidence == "low" or asked_low,
        cited=bool(citations),
    )


def repeated_sentences(response: str) -> int:
    seen: set[str] = set()
    repeats = 0
    for sentence in answer_sentences(response):
        key = normalise(sentence)
        repeats += key in seen
        seen.add(key)
    return repeats
