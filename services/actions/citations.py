"""From a model's `[n]` markers to the citations of the SSE contract (docs/architecture.md §10.1),
renumbered in order of first use as text streams.

Passages go to the model numbered 1..N; answers cite a few of them. The reader should see
[1], [2], [3] in reading order, so markers are renumbered on the fly, including a marker that
arrives split across two deltas. Each citation's quote is the passage sentence closest to the
sentence that cites it: the cited words themselves when they are the passage's own (the offline
engine quotes verbatim, and a table row printed inside a longer run of text is its own quote, on
its own page), else the passage sentence a model's paraphrase is closest to.

A citation's page is the page of the sentence it quotes (a chunk may run over a page break), and
its quote keeps only the sentences on that page, so the page, the quote and the viewer's highlight
agree (issue #27). A passage quoted on two of its pages (a list's lead-in on one page, the item asked
about on the next) is two citations, one per page: one number would send the reader to the first
page for a sentence printed on the second.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz

from shared.contracts import ChunkHit, Citation
from shared.llm.schemas import Passage
from shared.text.labels import document_label
from shared.text.pages import locate, page_of_sentence
from shared.text.quotes import quote_of
from shared.text.sentences import split_sentences
from shared.text.tables import printed_rows, row_parts

_MARKER = re.compile(r"\[(\d{1,3})\]")
_OPEN_TAIL = re.compile(r"\[\d{0,3}$")
# The words a marker cites: back to the end of the previous sentence or the previous marker (a
# table row ends in a figure, not a full stop, so rows quoted one after another are told apart); a
# decimal point ("$4.1 billion") ends no sentence, nor does the full stop of a row's label
# ("Net loss attributable to Krispy Kreme, Inc. — Quarter Ended …: (20,311)") or of a column's
# header ("… on higher market levels.: 859").
_SENTENCE_BEFORE = re.compile(r"((?:[^.!?\n\]]|\.(?=\d|\s—\s|:))*[.!?]?)\s*$")


def passages_of(chunks: list[ChunkHit], first: int = 1) -> list[Passage]:
    """The chunks as numbered passages, `first` being the number of the first one."""
    return [
        Passage(
            n=first + i,
            document_id=str(c.document_id),
            document=document_label(c.title, c.version),
            page=c.page,
            text=c.text,
            page_breaks=list(c.page_breaks),
            statement_pages=list(c.statement_pages),
        )
        for i, c in enumerate(chunks)
    ]


@dataclass
class CitationBook:
    chunks: list[ChunkHit]
    # (passage n, page quoted) → reader's number, and that citation's quotes.
    _numbers: dict[tuple[int, int], int] = field(default_factory=dict)
    _quotes: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    _pending: str = ""
    _text: str = ""

    def _renumber(self, match: re.Match[str]) -> str:
        n = int(match.group(1))
        if not 1 <= n <= len(self.chunks):
            return ""  # a number the model made up cites nothing
        before = _SENTENCE_BEFORE.search(self._text + match.string[: match.start()])
        cited = before.group(1).strip() if before else ""
        return f"[{self.cite(n, self._best_sentence(n, cited))}]"

    def _best_sentence(self, n: int, cited: str) -> str:
        text = self.chunks[n - 1].text
        sentences = split_sentences(text, self.chunks[n - 1].page_breaks) or [text]
        if len(cited.split()) >= 3 and locate(text, cited) is not None:
            # The cited words are the passage's own: a table row is its own quote, and so is the
            # row they end ("…: (3)% (in millions)." after a header's full stop); other words are
            # quoted as the sentence they end (cut short after an abbreviation's full stop, "the
            # U.S. dollar"), or as themselves.
            ending = next((s for s in sentences if s.endswith(cited)), None)
            if ending is not None and row_parts(ending) is not None:
                return ending
            if row_parts(cited) is not None or printed_rows(cited):
                return cited
            return ending or cited
        return max(sentences, key=lambda s: fuzz.token_set_ratio(s, cited))

    def cite(self, n: int, quote: str) -> int:
        """The reader's number of passage `n` on the page of `quote`, quoted by it (structured answers
        cite this way)."""
        chunk = self.chunks[n - 1]
        key = (n, page_of_sentence(chunk.text, chunk.page, chunk.page_breaks, quote))
        self._quotes.setdefault(key, []).append(quote)
        return self._numbers.setdefault(key, len(self._numbers) + 1)

    def feed(self, delta: str) -> str:
        """Renumbered text that is safe to show now; a possibly unfinished marker is held back."""
        text = self._pending + delta
        tail = _OPEN_TAIL.search(text)
        self._pending = tail.group(0) if tail else ""
        ready = text[: tail.start()] if tail else text
        out = _MARKER.sub(self._renumber, ready)
        self._text += out
        return out

    def flush(self) -> str:
        out, self._pending = self._pending, ""
        self._text += out
        return out

    def renumber(self, text: str) -> str:
        return self.feed(text) + self.flush()

    @property
    def used(self) -> list[ChunkHit]:
        """The passages cited, once each, in order of first use."""
        return [self.chunks[n - 1] for n in dict.fromkeys(n for n, _ in self._numbers)]

    @property
    def count(self) -> int:
        """How many citations there are: the reader's last number."""
        return len(self._numbers)

    def citations(self) -> list[dict[str, Any]]:
        out = []
        for (n, page), number in self._numbers.items():
            chunk = self.chunks[n - 1]
            quotes = list(dict.fromkeys(self._quotes[(n, page)]))[:3]
            out.append(
                Citation(
                    n=number,
                    document_id=chunk.document_id,
                    title=document_label(chunk.title, chunk.version),
                    page=page,
                    quote=quote_of(quotes),
                    chunk_id=chunk.chunk_id,
                    navigation_target={
                        "type": "document_page",
                        "document_id": str(chunk.document_id),
                        "page": page,
                    },
                ).model_dump(mode="json")
            )
        return out
