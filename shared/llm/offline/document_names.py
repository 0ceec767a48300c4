"""A question's words that name its document do not say which of the document's sentences answers it.

"Who is the licence steward of the MPL?" asked of the Mozilla Public License: "MPL" is a rare word
of the question, so "If a copy of the MPL was not distributed with this file, You can obtain one at
…" got the lexical bonus of compose.py for it and joined the answer as a second sentence covering a
question term the first did not; "What is the purpose of the GNU Free Documentation License?" was
answered by the sentence that names the licence in full. Every sentence of a tagged document is
about that document, so the question's words that name it (a word of its title, or the initials of
the title's words: "GPLv3", "LGPL", "AML") are set aside when sentences are scored for their words.
The similarity of the whole question is kept. Measured on the dev split of examples/eval
(docs/answers-on-real-documents.md, fifth round).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from shared.llm.offline.compose import terms
from shared.llm.schemas import Passage

# "GPLv3", "MPL", "AML": a word in capitals, perhaps with a version, abbreviating a title.
RUN = 2
INITIALISM = re.compile(r"\b([A-Z][A-Za-z]*[A-Z])(?:\s?v?\d+(?:\.\d+)*)?\b")


def document_titles(passages: Sequence[Passage]) -> list[str]:
    """The titles of the passages' documents, each once, in the passages' order."""
    return list(dict.fromkeys(p.document for p in passages))


def naming_terms(question: str, titles: Sequence[str]) -> set[str]:
    """The question's terms (compose.terms) that name one of the documents: two or more words of its
    title in a row ("the GNU Free Documentation License"), or the initials of its title's words
    ("GPLv3" for "GNU General Public License v3"). One word of a title ("data", "cloud") may well
    be what the question asks about, so it does not name the document."""
    named: set[str] = set()
    words = question.split()
    for title in titles:
        of_title = terms(title)
        run: list[str] = []
        for word in [*words, ""]:
            found = terms(word)
            if found and found <= of_title:
                run.append(word)
                continue
            if len(run) >= RUN:
                named |= set().union(*(terms(w) for w in run))
            run = []
        initials = "".join(w[0] for w in re.findall(r"[A-Za-z]+", title)).lower()
        for match in INITIALISM.finditer(question):
            if match.group(1).lower() in initials:
                named |= terms(match.group(0))
    return terms(question) & named


def without_document_names(question: str, titles: Sequence[str]) -> str:
    """The question without the words that name the documents (`titles`), for scoring sentences by their words."""
    named = naming_terms(question, titles)
    return " ".join(word for word in question.split() if not terms(word) & named)
