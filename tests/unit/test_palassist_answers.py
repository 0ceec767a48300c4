"""Answers to PalAssist questions in the shapes clients send them (shared/contracts/answers.py and the
`/lg` translation of Agent Chat UI's decisions): accepted in their canonical shape, or refused with
the field that is wrong."""

from __future__ import annotations

import json
import uuid

import pytest
from pydantic import ValidationError

from services.gateway.errors import ApiError
from services.gateway.routes.langgraph.interrupts import cancel_answer, resume_value
from shared.contracts import Question, ResumeValue
from shared.contracts.answers import AnswerError, checked_answer, listed_ids
from shared.contracts.langgraph import LgCommand, RunCreate, ThreadSearch

A, B, C = (str(uuid.uuid4()) for _ in range(3))
OFFERED = {
    "interrupt_type": "doc_choice",
    "message": "Which one?",
    "options": [{"id": A, "label": "One"}, {"id": B, "label": "Two"}, {"id": "all", "label": "All of these"}],
}
MISSING = {"interrupt_type": "doc_choice", "message": "Which documents?", "options": None}
TEXT = {"interrupt_type": "text_input", "message": "Audit against what?", "options": None}
LOW = {
    "interrupt_type": "retrieval_low",
    "message": "Weak matches",
    "options": [{"id": "tag_docs", "label": "Tag"}, {"id": "continue", "label": "Go on"}],
}


def check(question: dict, type_: str, value) -> ResumeValue:
    return checked_answer(Question.model_validate(question), ResumeValue(type=type_, value=value))


@pytest.mark.parametrize(
    "raw",
    [[A, B], json.dumps([A, B]), f"{A}, {B}", f" {A},{B},", [A, B, A], json.dumps([A.upper(), B])],
)
def test_document_ids_in_every_shape_clients_send(raw):
    assert check(OFFERED, "doc_choice", raw).value == [A, B]


def test_a_single_id_all_and_free_ids_are_canonical():
    assert check(OFFERED, "doc_choice", A).value == [A]
    assert check(OFFERED, "doc_choice", ["all", A]).value == ["all"]
    assert check(MISSING, "doc_choice", json.dumps([C.upper()])).value == [C]


@pytest.mark.parametrize(
    ("question", "type_", "value", "field"),
    [
        (OFFERED, "doc_choice", C, "value"),  # a real id that was not offered
        (OFFERED, "doc_choice", "[not json", "value"),
        (OFFERED, "doc_choice", [], "value"),
        (OFFERED, "doc_choice", {"ids": [A]}, "value"),
        (OFFERED, "doc_choice", [A, 7], "value"),
        (MISSING, "doc_choice", '["92be", "59a0"]', "value"),  # the resolver crash of issue 29
        (MISSING, "doc_choice", "all", "value"),  # nothing was offered to take all of
        (MISSING, "text_input", "x", "type"),
        (TEXT, "text_input", "   ", "value"),
        (TEXT, "text_input", ["a list"], "value"),
        (LOW, "retrieval_choice", "web_search", "value"),  # not among this question's options
        (LOW, "retrieval_choice", None, "value"),
    ],
)
def test_answers_that_do_not_fit_name_the_field(question, type_, value, field):
    with pytest.raises(AnswerError) as refused:
        check(question, type_, value)
    assert refused.value.field == field and "Error" not in refused.value.reason


def test_cancel_fits_every_client_question_and_drops_its_value():
    for question in (OFFERED, MISSING, TEXT, LOW):
        assert check(question, "cancel", {"anything": 1}) == ResumeValue(type="cancel")
    escalation = {"interrupt_type": "escalation", "message": "An expert will answer", "options": None}
    assert check(escalation, "human_answer", " Within 30 days. ").value == "Within 30 days."
    with pytest.raises(AnswerError) as refused:  # the customer waits for a person
        check(escalation, "cancel", None)
    assert refused.value.field == "type"


def test_listed_ids_keeps_order_and_drops_blanks():
    assert listed_ids(" b, a ,, b") == ["b", "a"]


# --- Agent Chat UI's vocabulary on /lg --------------------------------------------------------


def edit(args) -> dict:
    return {"decisions": [{"type": "edit", "edited_action": {"name": "doc_choice", "args": args}}]}


@pytest.mark.parametrize(
    "resume",
    [
        edit({"document_ids": json.dumps([A, B])}),  # what Agent Chat UI's edit form sends
        edit(json.dumps({"document_ids": [A, B]})),
        edit({"document_ids": f"{A},{B}"}),
        [{"type": "edit", "args": {"action": "doc_choice", "args": {"document_ids": [A, B]}}}],  # HumanResponse
        {"type": "doc_choice", "value": json.dumps([A, B])},
    ],
)
def test_edited_document_choices_arrive_as_lists(resume):
    assert resume_value(OFFERED, resume) == ResumeValue(type="doc_choice", value=[A, B])


def test_approve_respond_reject_and_ignore():
    assert resume_value(OFFERED, {"decisions": [{"type": "approve"}]}).value == [A]
    assert resume_value(LOW, [{"type": "accept", "args": None}]).value == "tag_docs"
    text = "Data must be deleted after 30 days."
    assert resume_value(TEXT, {"decisions": [{"type": "respond", "args": text}]}).value == text
    assert resume_value(TEXT, [{"type": "response", "args": f'"{text}"'}]).value == text
    rejected = {"decisions": [{"type": "reject", "message": "I'll tag it myself"}]}
    assert resume_value(TEXT, rejected).type == "cancel"
    assert resume_value(LOW, [{"type": "ignore", "args": None}]).type == "cancel"
    assert cancel_answer(TEXT).type == "cancel"


@pytest.mark.parametrize(
    ("question", "resume", "field"),
    [
        (
            MISSING,
            edit({"document_ids": '["92be", "59a0"]'}),
            "command.resume.decisions[0].edited_action.args.document_ids",
        ),
        (OFFERED, {"type": "doc_choice", "value": C}, "command.resume.value"),
        (OFFERED, {"type": "text_input", "value": "x"}, "command.resume.type"),
        (OFFERED, C, "command.resume"),
        (TEXT, {"decisions": [{"type": "respond", "args": ""}]}, "command.resume.decisions[0].args"),
    ],
)
def test_a_bad_answer_is_a_422_naming_the_field(question, resume, field):
    with pytest.raises(ApiError) as refused:
        resume_value(question, resume)
    assert refused.value.status == 422 and refused.value.details == {"field": field}
    assert refused.value.message.startswith(f"{field}: ")


def test_goto_end_closes_the_question_and_nothing_else_goes():
    assert LgCommand.model_validate({"goto": "__end__"}).closes
    assert not LgCommand.model_validate({"resume": "x"}).closes
    for bad in ({"goto": "inquire"}, {"goto": "__end__", "resume": 1}, {"update": {"x": 1}, "resume": 1}, {}):
        with pytest.raises(ValidationError):
            LgCommand.model_validate(bad)


def test_lg_bodies_ignore_unknown_fields_and_enqueue_by_default():
    body = RunCreate.model_validate(
        {"input": {"messages": [{"type": "human", "content": "hi"}], "x": 1}, "raise_error": True, "future": {}}
    )
    assert body.multitask_strategy == "enqueue"
    assert ThreadSearch.model_validate({"limit": 5, "newer_sdk_field": True}).limit == 5
