"""Events on `PP_EVENTS` (`pp.evt.thread.<id>`, `pp.evt.ingest.<id>`) and the SSE contract (§9).

The SSE `event:` field is the model's `type`; `data:` is the model without `type`.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from shared.contracts.common import Action, Confidence, Contract


class ThreadEventBase(Contract):
    thread_id: uuid.UUID
    run_id: uuid.UUID


class DocRef(Contract):
    id: uuid.UUID
    title: str


class StatusEvent(ThreadEventBase):
    type: Literal["status"] = "status"
    node: str
    message: str
    docs_found: list[DocRef] | None = None
    web_query: str | None = None


class TokenEvent(ThreadEventBase):
    type: Literal["token"] = "token"
    text: str


class Citation(Contract):
    n: int
    source_type: Literal["document", "web"] = "document"
    document_id: uuid.UUID | None = None
    title: str
    page: int | None = None
    url: str | None = None
    quote: str = Field(max_length=300)
    chunk_id: uuid.UUID | None = None
    navigation_target: dict[str, Any]


class ResponseEvent(ThreadEventBase):
    type: Literal["response"] = "response"
    message_id: uuid.UUID
    response: str
    citations: list[Citation] = Field(default_factory=list)
    action: Action
    inference_confidence: Confidence = "low"
    retrieval_confidence: Confidence = "low"
    confidence_score: float = 0.0
    findings: dict[str, Any] | None = None
    engine: str
    tokens_used: int = 0
    cost_usd: float = 0.0
    answered_by: Literal["model", "cache", "human"] = "model"
    stopped: bool = Field(False, description="The user stopped the run: `response` is what had been said by then.")


class InterruptOption(Contract):
    id: str
    label: str


class InterruptEvent(ThreadEventBase):
    type: Literal["interrupt"] = "interrupt"
    interrupt_type: Literal["action_choice", "doc_choice", "text_input", "retrieval_low", "escalation"]
    message: str
    options: list[InterruptOption] | None = None


class EscalationEvent(ThreadEventBase):
    type: Literal["escalation"] = "escalation"
    ticket_id: uuid.UUID
    message: str


class ErrorEvent(ThreadEventBase):
    type: Literal["error"] = "error"
    code: str
    message: str


ThreadEvent = Annotated[
    StatusEvent | TokenEvent | ResponseEvent | InterruptEvent | EscalationEvent | ErrorEvent,
    Field(discriminator="type"),
]
TERMINAL_EVENT_TYPES = frozenset({"response", "interrupt", "escalation", "error"})

_thread_event_adapter: TypeAdapter[ThreadEvent] = TypeAdapter(ThreadEvent)


def parse_thread_event(raw: bytes | str) -> ThreadEvent:
    """Validate a thread event read from the bus."""
    return _thread_event_adapter.validate_json(raw)


class IngestProgress(Contract):
    """`pp.evt.ingest.<document_id>`: one step of a document's ingestion."""

    type: Literal["progress"] = "progress"
    document_id: uuid.UUID
    status: Literal["queued", "processing", "ready", "failed"]
    stage: Literal["queued", "parsing", "chunking", "embedding", "storing", "done"]
    done: int = 0
    total: int = 0
    error: str | None = None
