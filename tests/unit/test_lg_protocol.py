"""LangGraph's v3 thread protocol on `/lg`: bus events → protocol events, their `seq`, channel filters
and command bodies (the wire is driven by the real SDKs in tests/e2e/test_lg_thread_stream.py)."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from pydantic import ValidationError

from services.gateway.routes.langgraph.protocol_events import SLOTS, ThreadProtocol, bus_seq
from services.gateway.routes.langgraph.values import ai_message_id
from shared.contracts.lg_protocol import EventStreamRequest, InputRespondParams, ProtocolCommand, RunStartParams

THREAD, RUN = uuid.uuid4(), uuid.uuid4()
QUESTION = {
    "interrupt_type": "action_choice",
    "message": "Which first?",
    "options": [{"id": "summarize", "label": "Summarize"}, {"id": "audit", "label": "Audit"}],
}


def protocol() -> ThreadProtocol:
    async def values() -> dict:
        return {"messages": []}

    async def interrupt_id() -> str:
        return "i-1"

    async def answer_id(run_id: uuid.UUID) -> str:
        return ai_message_id(run_id)

    return ThreadProtocol(THREAD, values, interrupt_id, answer_id)


def event(kind: str, **fields) -> dict:
    return {"type": kind, "thread_id": str(THREAD), "run_id": str(RUN), **fields}


def translate(events: list[tuple[int, dict]]) -> list:
    async def go():
        translator = protocol()
        return [out for seq, e in events for out in await translator.translate(seq, e)]

    return asyncio.run(go())


def test_a_run_becomes_lifecycle_updates_messages_values_in_order_with_a_seq_each():
    out = translate(
        [
            (7, event("status", node="inquire", message="Searching")),
            (8, event("token", text="Kept ")),
            (9, event("token", text="a year.")),
            (10, event("response", message_id=ai_message_id(RUN), response="Kept a year.")),
        ]
    )
    methods = [(o.method, o.data.get("event") or o.data.get("name") or o.data.get("node")) for o in out]
    assert methods == [
        ("lifecycle", "started"),
        ("custom", "status"),
        ("updates", "inquire"),
        ("custom", "token"),
        ("messages", "message-start"),
        ("messages", "content-block-start"),
        ("messages", "content-block-delta"),
        ("custom", "token"),
        ("messages", "content-block-delta"),
        ("custom", "response"),
        ("messages", "content-block-finish"),
        ("messages", "message-finish"),
        ("updates", "format_response"),
        ("values", None),
        ("lifecycle", "completed"),
    ]
    assert [o.seq for o in out[:3]] == [7 * SLOTS, 7 * SLOTS + 1, 7 * SLOTS + 2]
    assert all(bus_seq(o.seq) in (7, 8, 9, 10) for o in out) and len({o.seq for o in out}) == len(out)
    assert out[4].data["id"] == ai_message_id(RUN) and out[4].data["metadata"]["langgraph_node"] == "inquire"
    wire = out[0].wire()
    assert wire["event_id"] == str(wire["seq"]) and wire["params"]["namespace"] == [] and wire["type"] == "event"


def test_a_stopped_run_fails_as_cancelled_and_a_question_is_an_input_request():
    stopped = translate([(3, event("response", message_id="m", response="", stopped=True))])
    assert stopped[-1].data == {"event": "failed", "error": "cancelled"}
    asked = translate([(4, event("interrupt", **QUESTION))])
    request = next(o for o in asked if o.method == "input.requested")
    assert request.channel == "input" and request.data["interrupt_id"] == "i-1"
    assert request.data["payload"]["action_requests"][0]["name"] == "action_choice"
    assert request.data["value"] == request.data["payload"]
    assert asked[-1].data == {"event": "interrupted"}
    values = next(o for o in asked if o.method == "values")
    assert values.data["__interrupt__"] == [{"value": request.data["payload"], "id": "i-1"}]
    failed = translate([(5, event("error", code="invalid_request", message="compare needs 2 documents"))])
    assert failed[-1].data == {"event": "failed", "error": "compare needs 2 documents"}


def test_channel_and_namespace_filters():
    wide = EventStreamRequest(channels=["values", "custom"])
    assert wide.wants("values") and wide.wants("custom", "status") and not wide.wants("messages")
    named = EventStreamRequest(channels=["custom:token"], namespaces=[[]], depth=0)
    assert named.wants("custom", "token") and not named.wants("custom", "status")
    assert not EventStreamRequest(channels=["values"], namespaces=[["agent"]]).wants("values")
    assert EventStreamRequest(channels=["values", "telepathy", "custom:x"]).unknown_channels() == ["telepathy"]
    with pytest.raises(ValidationError):
        EventStreamRequest(channels=[])
    with pytest.raises(ValidationError):
        EventStreamRequest(channels=["values"], since=-1)


def test_command_bodies_ignore_unknown_fields_and_name_what_is_missing():
    command = ProtocolCommand.model_validate({"id": 3, "method": "run.start", "params": {}, "newer_sdk_field": 1})
    assert command.id == 3 and command.params == {}
    fork = RunStartParams.model_validate(
        {"assistant_id": "policypal", "config": {"configurable": {"checkpoint_id": "c"}}}
    )
    assert fork.checkpoint_id == "c" and fork.multitask_strategy == "enqueue"
    assert (
        RunStartParams.model_validate({"assistant_id": "policypal", "config": {"configurable": 1}}).checkpoint_id
        is None
    )
    many = InputRespondParams.model_validate({"responses": [{"namespace": [], "interrupt_id": "i", "response": "x"}]})
    assert many.answer().interrupt_id == "i" and many.answer().response == "x"
    with pytest.raises(ValueError, match="interrupt_id"):
        InputRespondParams.model_validate({"response": "x"}).answer()
    with pytest.raises(ValidationError):
        ProtocolCommand.model_validate({"id": -1, "method": "run.start"})

