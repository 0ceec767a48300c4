"""A list item that continues a sentence is quoted with the sentence that announces its list.

Regulations and filings print a sentence's end as a list: "the controller and the processor shall
implement appropriate technical and organisational measures … including inter alia as appropriate:"
over "(a) the pseudonymisation and encryption of personal data;" … "(d) a process for regularly
testing…"; a 10-Q's "factors include:" over "• our ability to offer products on favorable terms,
manage inventory, and fulfill orders;". An item that opens in lower case is the rest of that
sentence: quoted alone, it says nothing of who must do it or what it is a factor of (issue #27, clean
extractive answers). So a picked item like that brings its list's lead-in, the nearest sentence
before it in its document (in whichever passage holds it) that announces what follows
(`compose.announces`), when only list items stand between them; an item that is a sentence of its
own ("• Net sales increased 11% to $158.9 billion") keeps standing alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from shared.llm.offline.compose import ASKS, LIST_ITEM, Scored, announces
from shared.text.sentences import Sentence, walk

# An item whose words open in lower case: "(d) a process for …", "• our ability to …".
CONTINUING_ITEM = re.compile(LIST_ITEM.pattern + r"\s*[a-z]")
# How many items of one list may stand between an item and its lead-in.
MAX_ITEMS_BETWEEN = 12


def lead_in(index: int, sentences: Sequence[Sentence]) -> int | None:
    """The index of the sentence announcing the list that sentence `index` continues, or None."""
    if not CONTINUING_ITEM.match(sentences[index].text):
        return None
    for i in walk(sentences, index, limit=MAX_ITEMS_BETWEEN + 1, backwards=True):
        before = sentences[i]
        if announces(before.text) and not ASKS.search(before.text):
            return i
        if not LIST_ITEM.match(before.text):
            return None
    return None


def with_lead_ins(picked: list[Scored], sentences: Sequence[Sentence]) -> list[Scored]:
    """The picks, each list item that continues a sentence preceded by its list's lead-in."""
    taken = {p.index for p in picked}
    out: list[Scored] = []
    for p in picked:
        lead = lead_in(p.index, sentences)
        if lead is not None and lead not in taken:
            out.append(Scored(lead, p.similarity, p.score, frozenset()))
            taken.add(lead)
        out.append(p)
    return out
