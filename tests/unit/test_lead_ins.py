"""A list item that continues a sentence is quoted with its list's lead-in (shared/llm/offline/lead_ins.py)."""

from __future__ import annotations

from shared.llm.offline.compose import Scored
from shared.llm.offline.lead_ins import lead_in, with_lead_ins
from shared.text.sentences import Sentence

ARTICLE = [
    Sentence(0, "Member States shall provide for the following."),
    Sentence(
        0,
        "The controller and the processor shall implement appropriate technical and organisational measures, "
        "including inter alia as appropriate:",
    ),
    Sentence(0, "(a) the pseudonymisation and encryption of personal data;"),
    Sentence(0, "(b) the ability to ensure the ongoing confidentiality of processing systems;"),
    Sentence(0, "(c) a process for regularly testing the effectiveness of the measures."),
    Sentence(1, "(d) the ability to restore the availability of personal data in a timely manner."),
]


def test_an_item_that_continues_a_sentence_finds_the_sentence_that_announces_its_list():
    assert lead_in(2, ARTICLE) == 1
    assert lead_in(4, ARTICLE) == 1
    # Another passage, the lead-in itself, a sentence that is not an item: none.
    assert lead_in(5, ARTICLE) is None
    assert lead_in(1, ARTICLE) is None
    assert lead_in(0, ARTICLE) is None


def test_an_item_that_is_a_sentence_of_its_own_or_a_list_under_a_question_keeps_standing_alone():
    highlights = [
        Sentence(0, "Third quarter highlights:"),
        Sentence(0, "• Net sales increased 11% to $158.9 billion in the third quarter."),
    ]
    assert lead_in(1, highlights) is None
    asked = [Sentence(0, "Which measures apply?"), Sentence(0, "(a) the pseudonymisation of personal data;")]
    assert lead_in(1, asked) is None
    prose = [Sentence(0, "Revenue grew as follows:"), Sentence(0, "It rose in every region."), ARTICLE[3]]
    assert lead_in(2, prose) is None


def test_the_lead_in_comes_before_its_item_once():
    picked = [Scored(4, 0.6, 0.7, frozenset({"testing"})), Scored(2, 0.5, 0.6, frozenset({"encryption"}))]
    assert [p.index for p in with_lead_ins(picked, ARTICLE)] == [1, 4, 2]
    already = [Scored(1, 0.6, 0.7, frozenset()), Scored(2, 0.5, 0.6, frozenset())]
    assert [p.index for p in with_lead_ins(already, ARTICLE)] == [1, 2]
