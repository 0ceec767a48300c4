"""A sentence knows its neighbours in its document across overlapping passages (shared/text/sentences.py).

Adjacent chunks share their overlap, and a sentence both hold is read once, from the passage ranked
first; the other passage's run continues in that one's sentences. An announcing sentence and its
list's lead-in follow the document, not the passage they were read from.
"""

from __future__ import annotations

import asyncio

from shared.llm.offline.answers import inquire
from shared.llm.offline.compose import Scored, with_what_follows
from shared.llm.offline.lead_ins import lead_in
from shared.llm.schemas import AnswerInputs, Passage
from shared.text.sentences import Sentence, candidate_sentences, next_in_document, previous_in_document

GRANT = (
    "Permission is hereby granted, free of charge, to any person obtaining a copy of this software, to deal in "
    "the Software without restriction, including the rights to sell copies of the Software, subject to the "
    "following conditions:"
)
CONDITION = (
    "The above copyright notice and this permission notice shall be included in all copies or substantial "
    "portions of the Software."
)
WARRANTY = 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.'
LIABILITY = "In no event shall the authors be liable for any claim, damages or other liability."


def licence(n: int, text: str, document_id: str = "mit") -> Passage:
    return Passage(n=n, document_id=document_id, document="MIT License", page=1, text=text)


# The chunk ranked first holds the overlap and what follows it; the chunk ranked second holds the
# grant that announces the overlap's first sentence.
LATER = licence(1, f"{CONDITION}\n\n{WARRANTY}\n\n{LIABILITY}")
EARLIER = licence(2, f"Copyright (c) 2024 Example Authors.\n\n{GRANT}\n\n{CONDITION}\n\n{WARRANTY}")


def index_of(sentences: list[Sentence], start: str) -> int:
    return next(i for i, s in enumerate(sentences) if s.text.startswith(start))


def test_a_sentence_read_from_another_passage_is_still_next_in_its_document():
    sentences = candidate_sentences([LATER, EARLIER])
    grant, condition = index_of(sentences, "Permission"), index_of(sentences, "The above")
    assert sentences[grant].chunk_index == 1 and sentences[condition].chunk_index == 0
    assert next_in_document(sentences, grant) == condition
    assert previous_in_document(sentences, condition) == grant
    # The overlap's own order is kept, and the first passage's last sentence has nothing after it.
    assert next_in_document(sentences, condition) == index_of(sentences, "THE SOFTWARE")
    assert next_in_document(sentences, index_of(sentences, "In no event")) is None


def test_the_same_words_in_another_document_neighbour_nothing_of_it():
    other = licence(2, f"This notice is provided for information only.\n\n{CONDITION}", document_id="other")
    sentences = candidate_sentences([LATER, other])
    notice = index_of(sentences, "This notice")
    assert next_in_document(sentences, notice) is None
    assert previous_in_document(sentences, index_of(sentences, "The above")) is None


def test_an_announcing_sentence_brings_what_follows_it_from_the_passage_that_holds_it():
    sentences = candidate_sentences([LATER, EARLIER])
    grant = index_of(sentences, "Permission")
    said = [s.index for s in with_what_follows([Scored(grant, 0.5, 0.5, frozenset())], sentences)]
    assert said[:2] == [grant, index_of(sentences, "The above")]
    answer = asyncio.run(
        inquire(AnswerInputs(query="Can I sell copies of the software?", passages=[LATER, EARLIER], sentences=1))
    )
    assert answer.index("subject to the following conditions:") < answer.index("The above copyright notice"), answer
    assert "[2]" in answer and "[1]" in answer


def test_a_list_item_finds_its_lead_in_in_the_passage_before_the_overlap():
    lead = (
        "The controller and the processor shall implement appropriate technical and organisational measures, "
        "including inter alia as appropriate:"
    )
    items = [
        "(a) the pseudonymisation and encryption of personal data;",
        "(b) the ability to ensure the ongoing confidentiality of processing systems;",
        "(c) a process for regularly testing the measures.",
    ]
    first = Passage(n=1, document_id="gdpr", document="GDPR", page=52, text="\n\n".join(items))
    second = Passage(n=2, document_id="gdpr", document="GDPR", page=52, text="\n\n".join([lead, items[0]]))
    sentences = candidate_sentences([first, second])
    assert lead_in(index_of(sentences, "(b)"), sentences) == index_of(sentences, "The controller")
