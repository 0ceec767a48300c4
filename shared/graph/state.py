"""The agent's explicit state (docs/architecture.md §5) and the per-turn input that resets transient fields.

Persistent fields (`messages`, `conversation_docs`, `conversation_summary`) are never put in
a turn's input, so they survive across turns in the checkpoint. The turn's answer fields are
`TurnResult`'s, declared once in the contracts; the checkpoint holds them in their JSON form.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.graph.message import add_messages

from shared.contracts import Action, AnsweredBy, ChatCommand, Confidence, ResolvedDoc, TurnResult


def merge_registry(left: dict[str, str] | None, right: dict[str, str] | None) -> dict[str, str]:
    """`conversation_docs` accumulates `{title: id}`; a turn can add but never wipe."""
    return {**(left or {}), **(right or {})}


class TurnFields(TypedDict, total=False):
    """TurnResult's fields, each `None` where no node has set it yet (the action until the resolver
    decides it), in their JSON form (the checkpoint holds plain data). Written out because a type
    checker cannot read a TypedDict built from the model at runtime; a unit test
    (tests/unit/test_turn_fields.py) keeps it field for field with TurnResult."""

    response: str | None
    citations: list[dict[str, Any]] | None  # Citation JSON
    action: Action | None
    inference_confidence: Confidence | None
    retrieval_confidence: Confidence | None
    confidence_score: float | None
    findings: dict[str, Any] | None
    engine: str | None
    tokens_used: int | None
    cost_usd: float | None
    answered_by: AnsweredBy | None


class AgentState(TurnFields, total=False):
    # persistent across turns
    messages: Annotated[list[AnyMessage], add_messages]
    conversation_docs: Annotated[dict[str, str], merge_registry]
    conversation_summary: str

    # identity of the turn
    run_id: str
    tenant_id: str
    user_id: str
    thread_id: str
    mode: str

    # request
    query: str
    tiptap_json: dict[str, Any] | None
    tagged_doc_ids: list[str]
    tagged_set_ids: list[str]
    requested_action: str | None
    enable_web_search: bool

    # resolution (`action` and `inference_confidence` are TurnResult fields)
    clean_query: str
    resolved_docs: list[dict[str, str]]  # ResolvedDoc JSON (plain data in the checkpoint): read with resolved_docs()
    inference_source: str
    notices: Annotated[list[str], operator.add]

    # action output (besides the TurnResult fields)
    message_id: str
    cancelled: bool
    web_search_query: str | None
    unmentioned: list[str]  # what the question names that no document mentions (services/actions/unmentioned.py)
    # It asks a quantity or who, and no sentence about it says (services/actions/quantities.py, asked_names.py).
    unstated: bool

    # Support mode (docs/architecture.md §8)
    standalone_question: str
    cache_hit: bool
    support_score: float


TRANSIENT_RESET: dict[str, Any] = {
    **TurnResult().model_dump(mode="json"),
    "action": None,
    "clean_query": "",
    "resolved_docs": [],
    "inference_source": "",
    "message_id": "",
    "cancelled": False,
    "web_search_query": None,
    "unmentioned": [],
    "unstated": False,
    "standalone_question": "",
    "cache_hit": False,
    "support_score": 0.0,
}


def turn_input(cmd: ChatCommand, *, mode: str = "workspace") -> dict[str, Any]:
    """The graph input of one chat turn: transient fields reset, the user message appended."""
    return {
        **TRANSIENT_RESET,
        "run_id": str(cmd.run_id),
        "tenant_id": str(cmd.tenant_id),
        "user_id": cmd.user_id,
        "thread_id": str(cmd.thread_id),
        "mode": mode,
        "query": cmd.message,
        "tiptap_json": cmd.tiptap_json,
        "tagged_doc_ids": [str(d) for d in cmd.tagged_doc_ids],
        "tagged_set_ids": [str(s) for s in cmd.tagged_set_ids],
        "requested_action": cmd.action,
        "enable_web_search": cmd.enable_web_search,
        "messages": [HumanMessage(content=cmd.message, id=f"{cmd.run_id}:user")],
    }


def replayed_turn(turn: Mapping[str, Any], **envelope: Any) -> ChatCommand:
    """The chat command of a turn run again (regenerate): `turn_input`'s dict read back, under a new
    run's `envelope` (run, tenant, user, thread and the checkpoint it starts from)."""
    return ChatCommand(
        **envelope,
        message=turn["query"],
        tiptap_json=turn.get("tiptap_json"),
        tagged_doc_ids=turn.get("tagged_doc_ids") or [],
        tagged_set_ids=turn.get("tagged_set_ids") or [],
        action=turn.get("requested_action"),
        enable_web_search=bool(turn.get("enable_web_search")),
    )


def turn_action(state: Mapping[str, Any]) -> Action:
    """The action the turn runs: the resolver's choice, else TurnResult's default (a turn whose
    action was never chosen, like one cancelled at the first question, is reported as that)."""
    return state.get("action") or TurnResult.model_fields["action"].default


def resolved_docs(state: Mapping[str, Any]) -> list[ResolvedDoc]:
    """The documents the resolver chose for the turn's action, in the order the user named them."""
    return [ResolvedDoc.model_validate(doc) for doc in state.get("resolved_docs", [])]


def resolved_doc_ids(state: Mapping[str, Any]) -> list[str]:
    return [str(doc.id) for doc in resolved_docs(state)]


def earlier_user_messages(state: AgentState, limit: int = 5) -> list[str]:
    """The user's messages before the current one, oldest first, at most `limit` of them."""
    earlier = [m for m in state.get("messages", [])[:-1] if m.type == "human"]
    return [str(m.content) for m in earlier[-limit:]]


def history_lines(state: AgentState, limit: int = 10) -> list[str]:
    """Earlier turns as "role: text" (oldest first), for tasks that read the conversation."""
    earlier = state.get("messages", [])[:-1][-limit:]
    return [f"{'user' if m.type == 'human' else 'assistant'}: {m.content}" for m in earlier]
