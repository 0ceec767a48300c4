"""A question that asks two things is answered for each (shared/llm/offline/parts.py)."""

from __future__ import annotations

from shared.llm.offline.compose import Scored, terms
from shared.llm.offline.parts import answer_each_part, question_parts

QUESTION = "Who audits Apple's financial statements, and since when has that firm served as its auditor?"
SENTENCES = [
    "We have audited the accompanying consolidated balance sheets of Apple Inc., the related notes "
    "(collectively referred to as the financial statements).",
    "We have served as the Company's auditor since 2009.",
    "The Audit Committee assists the Board in the oversight of cybersecurity matters.",
]


def scored(scores: list[float], *, heading: int | None = None) -> list[Scored]:
    wanted = terms(QUESTION)
    return [
        Scored(i, score, score, frozenset(wanted & terms(text)), heading=i == heading)
        for i, (text, score) in enumerate(zip(SENTENCES, scores, strict=True))
    ]


def test_a_question_is_cut_where_it_asks_its_next_thing():
    assert question_parts(QUESTION) == [
        "Who audits Apple's financial statements",
        "since when has that firm served as its auditor?",
    ]
    assert question_parts("What was the R&D expense, and what were the focuses of this spending?") == [
        "What was the R&D expense",
        "what were the focuses of this spending?",
    ]
    assert question_parts("How did net sales and gross margin change in 2024?") == [
        "How did net sales and gross margin change in 2024?"
    ]
    assert question_parts("What is the retention period? Who approves exceptions?") == [
        "What is the retention period",
        "Who approves exceptions?",
    ]


def test_the_part_the_picked_sentences_leave_unanswered_gets_its_own_sentence():
    ranked = scored([0.77, 0.65, 0.70])
    answered = answer_each_part(QUESTION, ranked, [ranked[0]], k=4, floor=-1.0)
    assert [s.index for s in answered] == [0, 1]


def test_a_part_already_answered_a_heading_a_weak_sentence_or_a_full_answer_adds_nothing():
    ranked = scored([0.77, 0.65, 0.70])
    assert [s.index for s in answer_each_part(QUESTION, ranked, [ranked[0], ranked[1]], k=4, floor=-1.0)] == [0, 1]
    headed = scored([0.77, 0.65, 0.70], heading=1)
    assert [s.index for s in answer_each_part(QUESTION, headed, [headed[0]], k=4, floor=-1.0)] == [0]
    weak = scored([0.77, 0.50, 0.70])
    assert [s.index for s in answer_each_part(QUESTION, weak, [weak[0]], k=4, floor=-1.0)] == [0]
    assert [s.index for s in answer_each_part(QUESTION, ranked, [ranked[0]], k=1, floor=-1.0)] == [0]
    one = "Who audits Apple's financial statements?"
    assert [s.index for s in answer_each_part(one, ranked, [ranked[0]], k=4, floor=-1.0)] == [0]
