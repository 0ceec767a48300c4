"""PalAssist answers that tag documents and sets, as the composer's @-mentions do (shared/contracts/answers.py):
a text answer with mentions, and the documents picked after "Tag specific documents"."""

from __future__ import annotations

import uuid

import pytest

from shared.contracts import Question, ResumeValue
from shared.contracts.answers import AnswerError, TaggedAnswer, checked_answer, tagged_answer

A, B, S = (str(uuid.uuid4()) for _ in range(3))
SIX = [str(uuid.uuid4()) for _ in range(6)]
TEXT = Question(interrupt_type="text_input", message="Please tag the document you'd like to reference.")
LOW = Question.model_validate(
    {
        "interrupt_type": "retrieval_low",
        "message": "I couldn't find strong matches in the documents. Would you like me to:",
        "options": [{"id": "tag_docs", "label": "📄 Tag specific documents"}, {"id": "continue", "label": "Go on"}],
    }
)
WIDEN = Question.model_validate(
    {"interrupt_type": "retrieval_low", "message": "Weak", "options": [{"id": "search_all", "label": "All"}]}
)


def check(question: Question, type_: str, value: object) -> object:
    return checked_answer(question, ResumeValue(type=type_, value=value)).value


def test_a_text_answer_carries_its_mentions_and_plain_text_stays_plain() -> None:
    value = check(TEXT, "text_input", {"text": " @Retention Policy ", "document_ids": [A.upper()], "set_ids": [S]})
    assert value == {"text": "@Retention Policy", "document_ids": [A], "set_ids": [S]}
    assert tagged_answer(value) == TaggedAnswer("@Retention Policy", [A], [S])
    assert check(TEXT, "text_input", {"text": "the retention policy", "document_ids": [], "set_ids": []}) == (
        "the retention policy"
    )
    assert tagged_answer("the retention policy") == TaggedAnswer("the retention policy")


def test_picked_documents_answer_tag_specific_documents() -> None:
    value = check(LOW, "retrieval_choice", {"choice": "tag_docs", "document_ids": f"{A},{B}"})
    assert value == {"choice": "tag_docs", "document_ids": [A, B], "set_ids": []}
    said = tagged_answer(value)
    assert said.text == "tag_docs" and said.tags
    assert check(LOW, "retrieval_choice", "tag_docs") == "tag_docs"  # a client without a menu


@pytest.mark.parametrize(
    ("question", "type_", "value", "field"),
    [
        (LOW, "retrieval_choice", {"choice": "tag_docs"}, "value"),  # picked nothing
        (LOW, "retrieval_choice", {"choice": "continue", "document_ids": [A]}, "value.choice"),
        (WIDEN, "retrieval_choice", {"choice": "tag_docs", "document_ids": [A]}, "value.choice"),  # not offered
        (LOW, "retrieval_choice", {"choice": "tag_docs", "document_ids": ["nope"]}, "value.document_ids"),
        (LOW, "retrieval_choice", {"choice": "tag_docs", "document_ids": [A], "extra": 1}, "value.extra"),
        (TEXT, "text_input", {"text": "x", "document_ids": SIX}, "value.document_ids"),
        (TEXT, "text_input", {"text": "  ", "document_ids": [A]}, "value.text"),
        (TEXT, "text_input", {"text": "x", "set_ids": 7}, "value.set_ids"),
    ],
)
def test_tag_answers_that_do_not_fit_name_the_field(question: Question, type_: str, value: object, field: str) -> None:
    with pytest.raises(AnswerError) as refused:
        check(question, type_, value)
    assert refused.value.field == field
