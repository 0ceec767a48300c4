"""The typed turn: TurnResult read from graph state, history metadata returned as written, the state's
keys and reset derived from the contract, and a PalAssist question's one cancel path."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command

from shared.contracts import ResponseEvent, TurnResult
from shared.contracts.api import MessageMetadata, MessageOut
from shared.graph.palassist import Cancelled, ask
from shared.graph.state import TRANSIENT_RESET, AgentState, resolved_doc_ids, resolved_docs, turn_action

RUN = str(uuid.uuid4())
CITATION = {
    "n": 1,
    "source_type": "document",
    "document_id": str(uuid.uuid4()),
    "title": "Retention Policy (1)",
    "page": 2,
    "url": None,
    "quote": "Records are kept for seven years.",
    "chunk_id": None,
    "navigation_target": {"page": 2},
}


def test_unset_and_null_state_fields_take_the_contract_defaults():
    result = TurnResult.of({"action": None, "engine": "offline", "citations": None, "query": "not a result field"})
    assert (result.action, result.inference_confidence, result.citations, result.answered_by) == (
        "inquire",
        "low",
        [],
        "model",
    )
    assert TurnResult.of({"tokens_used": 5}, tokens_used=9).tokens_used == 9


def test_state_keys_and_reset_come_from_the_turn_result():
    assert set(TurnResult.model_fields) <= set(AgentState.__annotations__)
    assert {k: TRANSIENT_RESET[k] for k in TurnResult.model_fields} == {
        **TurnResult().model_dump(mode="json"),
        "action": None,
    }
    assert turn_action({"action": None}) == "inquire" and turn_action({"action": "audit"}) == "audit"


def test_response_event_keeps_its_wire_shape():
    event = ResponseEvent.of(
        {"response": "Seven years [1].", "citations": [CITATION], "action": "inquire", "engine": "offline"},
        thread_id=uuid.uuid4(),
        run_id=uuid.uuid4(),
        message_id=uuid.uuid4(),
    )
    assert list(json.loads(event.model_dump_json())) == [
        "thread_id",
        "run_id",
        "type",
        "message_id",
        "response",
        "citations",
        "action",
        "inference_confidence",
        "retrieval_confidence",
        "confidence_score",
        "findings",
        "engine",
        "tokens_used",
        "cost_usd",
        "answered_by",
        "stopped",
    ]


def test_every_kind_of_history_metadata_is_returned_as_written():
    written = [
        {"run_id": RUN, "tiptap_json": None, "tagged_doc_ids": []},
        {"run_id": RUN},
        MessageMetadata.answer(
            TurnResult(citations=[CITATION], engine="offline"), run_id=RUN, cancelled=False
        ).model_dump(mode="json"),
        {
            "kind": "assistant",
            "run_id": RUN,
            "action": "audit",
            "inference_confidence": "high",
            "engine": "x",
            "tokens_used": 3,
            "cost_usd": 0.01,
            "stopped": True,
        },
        {"kind": "pal_assist", "interrupt_type": "doc_choice", "options": [{"id": "all", "label": "All of these"}]},
        {"kind": "pal_assist", "interrupt_type": "text_input", "options": None},
        {"kind": "pal_assist_cancelled"},
        {"kind": "escalation", "run_id": RUN},
        {},
    ]
    for metadata in written:
        out = MessageOut(id=uuid.uuid4(), role="assistant", content="", metadata=metadata, created_at=datetime.now(UTC))
        assert json.loads(out.model_dump_json())["metadata"] == metadata
    answer = written[2]
    assert "response" not in answer and answer["cancelled"] is False and answer["retrieval_confidence"] == "low"


def test_resolved_documents_are_one_list():
    doc_id = str(uuid.uuid4())
    state = {"resolved_docs": [{"id": doc_id, "title": "GDPR (2016)", "doc_type": "regulatory_source"}]}
    [doc] = resolved_docs(state)
    assert (doc.title, doc.doc_type, resolved_doc_ids(state)) == ("GDPR (2016)", "regulatory_source", [doc_id])


def test_a_cancelled_question_ends_the_turn_with_its_feedback():
    class State(TypedDict, total=False):
        cancelled: bool
        response: str

    def node(state: State) -> dict:
        answer = ask("text_input", "Which document?", on_cancel="Tag one next time.")
        return answer.update if isinstance(answer, Cancelled) else {"response": str(answer.value)}

    graph = StateGraph(State).add_node("node", node).add_edge(START, "node").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    asked = graph.invoke({}, config)
    [pending] = asked["__interrupt__"]
    assert pending.value == {"interrupt_type": "text_input", "message": "Which document?", "options": None}
    done = graph.invoke(Command(resume={"type": "cancel", "value": None}), config)
    assert done == {"cancelled": True, "response": "Request cancelled. Tag one next time."}
