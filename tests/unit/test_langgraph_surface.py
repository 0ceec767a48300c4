"""The `/lg` surface's pure translations: PalAssist ⇄ HITL shapes, run input, stream modes, SSE events."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
from pydantic import ValidationError

from services.gateway.errors import ApiError
from services.gateway.routes.langgraph.interrupts import offered, resume_value
from services.gateway.routes.langgraph.stream import ResumePoint, RunStream
from shared.contracts.langgraph import LgInput, RunCreate, normalize_modes

ACTION_CHOICE = {
    "interrupt_type": "action_choice",
    "message": "Which first?",
    "options": [{"id": "summarize", "label": "Summarize"}, {"id": "audit", "label": "Audit"}],
}
TEXT_INPUT = {"interrupt_type": "text_input", "message": "Tag it", "options": None}


def test_a_question_is_offered_in_both_shapes():
    value = offered(ACTION_CHOICE)
    assert value["interrupt_type"] == "action_choice" and value["options"] == ACTION_CHOICE["options"]
    request = value["action_requests"][0]
    assert request["name"] == "action_choice" and request["args"] == {"choice": "summarize"}
    assert "summarize = Summarize" in request["description"]
    config = value["review_configs"][0]
    assert config["allowed_decisions"] == ["approve", "edit", "reject"]
    assert config["args_schema"]["properties"]["choice"]["enum"] == ["summarize", "audit"]
    free = offered(TEXT_INPUT)["review_configs"][0]
    assert free["allowed_decisions"] == ["edit", "reject"]  # nothing to approve in a free answer


def test_escalations_are_not_offered_as_hitl():
    value = offered({"interrupt_type": "escalation", "message": "wait", "options": None})
    assert "action_requests" not in value


@pytest.mark.parametrize(
    ("resume", "expected"),
    [
        ({"decisions": [{"type": "approve"}]}, ("action_choice", "summarize")),
        (
            {"decisions": [{"type": "edit", "edited_action": {"name": "action_choice", "args": {"choice": "audit"}}}]},
            ("action_choice", "audit"),
        ),
        ({"decisions": [{"type": "reject", "message": "no"}]}, ("cancel", None)),
        ({"type": "action_choice", "value": "audit"}, ("action_choice", "audit")),
        ("audit", ("action_choice", "audit")),
    ],
)
def test_answers_in_every_shape_become_our_resume_value(resume, expected):
    answer = resume_value(ACTION_CHOICE, resume)
    assert (answer.type, answer.value) == expected


def test_retrieval_low_answers_are_retrieval_choices():
    question = {"interrupt_type": "retrieval_low", "message": "?", "options": [{"id": "continue", "label": "Go"}]}
    assert resume_value(question, "continue").type == "retrieval_choice"


@pytest.mark.parametrize(
    ("question", "resume", "status"),
    [
        (TEXT_INPUT, {"decisions": [{"type": "approve"}]}, 422),  # no default to approve
        (ACTION_CHOICE, {"decisions": []}, 422),
        (ACTION_CHOICE, {"decisions": [{"type": "maybe"}]}, 422),
        (ACTION_CHOICE, {"decisions": [{"type": "edit", "edited_action": {"args": {}}}]}, 422),
        (ACTION_CHOICE, {"type": "human_answer", "value": "x"}, 403),
        (ACTION_CHOICE, {"type": "nonsense"}, 422),
        ({"interrupt_type": "escalation", "message": "m", "options": None}, "hi", 409),
    ],
)
def test_bad_answers_are_refused_precisely(question, resume, status):
    with pytest.raises(ApiError) as refused:
        resume_value(question, resume)
    assert refused.value.status == status


def test_input_takes_the_last_human_message_and_text_parts():
    parsed = LgInput.model_validate(
        {
            "messages": [
                {"type": "human", "content": "earlier"},
                {"type": "ai", "content": "answer"},
                {"role": "user", "content": [{"type": "text", "text": "now"}, {"type": "image_url", "image_url": "x"}]},
            ],
            "action": "inquire",
        }
    )
    assert parsed.messages[-1].text == "now" and parsed.action == "inquire"
    for bad in (
        {"messages": []},
        {"messages": [{"type": "ai", "content": "x"}]},
        {"messages": [{"type": "human", "content": " "}]},
    ):
        with pytest.raises(ValidationError):
            LgInput.model_validate(bad)


def test_runs_need_input_or_a_resume_and_stream_modes_are_normalised():
    with pytest.raises(ValidationError):
        RunCreate.model_validate({"assistant_id": "policypal"})
    with pytest.raises(ValidationError):
        RunCreate.model_validate({"command": {"goto": "x", "resume": 1}})
    resume = RunCreate.model_validate({"command": {"resume": "x"}, "input": {}, "stream_mode": ["messages", "values"]})
    assert resume.modes == ["messages-tuple", "values"]
    assert normalize_modes([]) == ["values"]
    with pytest.raises(ValueError, match="unknown stream_mode"):
        normalize_modes(["nope"])


def _stream(modes: list[str]) -> RunStream:
    async def values():
        return {"messages": [{"type": "human", "content": "q"}]}

    async def interrupt_id():
        return "i-1"

    run_id = uuid.uuid4()
    return RunStream(
        run_id=run_id, thread_id=uuid.uuid4(), answer_id="a-1", modes=modes, values=values, interrupt_id=interrupt_id
    )


def _translate(stream: RunStream, seq: int, event: dict) -> list[tuple[str, object, str | None]]:
    items = asyncio.run(stream.translate(seq, event))
    return [(i["event"], json.loads(i["data"]), i.get("id")) for i in items]


def test_events_become_one_sse_event_per_mode_and_the_last_carries_the_sequence():
    stream = _stream(["values", "updates", "messages-tuple", "custom"])
    status = _translate(stream, 7, {"type": "status", "node": "inquire", "message": "Researching"})
    assert [e for e, _, _ in status] == ["custom", "updates"] and [i for _, _, i in status] == ["7.0", "7"]
    assert status[1][1] == {"inquire": {"status": "Researching"}}
    token = _translate(stream, 8, {"type": "token", "text": "Hel"})
    chunk, meta = token[-1][1]
    assert chunk["id"] == "a-1" and chunk["content"] == "Hel" and meta["langgraph_node"] == "inquire"
    asked = _translate(stream, 9, {"type": "interrupt", **ACTION_CHOICE})
    assert [e for e, _, _ in asked] == ["custom", "updates", "values"]
    assert (
        asked[1][1]["__interrupt__"][0]["id"] == "i-1" and asked[2][1]["__interrupt__"] == asked[1][1]["__interrupt__"]
    )
    failed = _translate(stream, 10, {"type": "error", "code": "not_found", "message": "gone"})
    assert failed[-1][:2] == ("error", {"error": "not_found", "message": "gone"})


def test_only_the_requested_modes_are_sent():
    stream = _stream(["values"])
    assert _translate(stream, 1, {"type": "status", "node": "x", "message": "m"}) == []
    assert _translate(stream, 2, {"type": "token", "text": "t"}) == []


def test_a_resume_inside_a_bus_event_skips_what_was_delivered():
    stream = _stream(["values", "updates", "custom"])

    async def source():
        yield 7, {"type": "status", "node": "inquire", "message": "Researching"}
        yield 8, {"type": "status", "node": "inquire", "message": "Writing"}

    async def relayed(last_event_id: str) -> list[str]:
        point = ResumePoint.of(last_event_id)
        assert point.after == (6 if "." in last_event_id else 7)
        return [out["id"] async for out in stream.relay(source(), point)]

    assert asyncio.run(relayed("7.0")) == ["7", "8.0", "8"]  # the custom of 7 was delivered
    assert asyncio.run(relayed("7")) == ["7.0", "7", "8.0", "8"]  # the source starts after 7 in real use
    assert ResumePoint.of("12") == ResumePoint(after=12)
