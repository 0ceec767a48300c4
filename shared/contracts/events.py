"""Events on `PP_EVENTS` (`pp.evt.thread.<id>`, `pp.evt.ingest.<id>`) and the SSE contract (docs/architecture.md §10.1).

The SSE `event:` field is the model's `type`; `data:` is the model without `type`.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Self

from pydantic import Field, TypeAdapter

from shared.contracts.common import Action, AnsweredBy, Confidence, Contract, DocType, InterruptType


class ThreadEventBase(Contract):
    thread_id: uuid.UUID
    run_id: uuid.UUID


class DocRef(Contract):
    id: uuid.UUID
    title: str


class ResolvedDoc(DocRef):
    """A document the resolver chose for the turn's action; the graph state holds these as JSON."""

    doc_type: DocType


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


class TurnResult(Contract):
    """A turn's answer: what the action nodes write into the graph state, format_response stores as the
    assistant message's metadata, and the `response` event carries. Declared once, here; the defaults
    are what a turn that never set a field reports (a cancelled turn never chose an action)."""

    response: str = ""
    citations: list[Citation] = Field(default_factory=list)
    action: Action = "inquire"
    inference_confidence: Confidence = "low"
    retrieval_confidence: Confidence = "low"
    confidence_score: float = 0.0
    findings: dict[str, Any] | None = None
    engine: str = ""
    tokens_used: int = 0
    cost_usd: float = 0.0
    answered_by: AnsweredBy = "model"

    @classmethod
    def of(cls, values: Mapping[str, Any], **fields: Any) -> Self:
        """The result held in graph state `values` (a field no node set, or set to null, takes its
        default), plus `fields`, which win: what is known only outside the state, like the run's totals."""
        held = {name: values[name] for name in TurnResult.model_fields if values.get(name) is not None}
        return cls.model_validate({**held, **fields})


class _ResponseHead(ThreadEventBase):
    """The fields a `response` event puts before the turn's result (kept first on the wire)."""

    type: Literal["response"] = "response"
    message_id: uuid.UUID


class ResponseEvent(TurnResult, _ResponseHead):
    stopped: bool = Field(False, description="The user stopped the run: `response` is what had been said by then.")


class InterruptOption(Contract):
    id: str
    label: str


class Question(Contract):
    """A PalAssist question, as the graph's `interrupt()` holds it and the `interrupt` event carries it."""

    interrupt_type: InterruptType
    message: str
    options: list[InterruptOption] | None = None


class _InterruptHead(ThreadEventBase):
    type: Literal["interrupt"] = "interrupt"


class InterruptEvent(Question, _InterruptHead):
    pass


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
# The one event that ends a run (its `type` is also the run's recorded end: shared/db/runs.py).
TerminalEvent = ResponseEvent | InterruptEvent | EscalationEvent | ErrorEvent
TERMINAL_EVENT_TYPES = frozenset({"response", "interrupt", "escalation", "error"})

_thread_event_adapter: TypeAdapter[ThreadEvent] = TypeAdapter(ThreadEvent)


def parse_thread_event(raw: bytes | str) -> ThreadEvent:
    """Validate a thread event read from the bus."""
    return _thread_event_adapter.validate_json(raw)


class IngestProgress(Contract):
    """`pp.evt.ingest.<document_id>`: one step of a document's ingestion."""

    type: Literal["progress"] = "progress"
    document_id: uuid.UUID
    # `duplicate`: a bus job whose bytes the user already has (docs/ingest.md): nothing was stored,
    # `existing_document_id` names the document that holds them, `error` says so in words.
    status: Literal["queued", "processing", "ready", "failed", "duplicate"]
    # After `ready` (searchable), stage `sentences` stores the sentence vectors in the background;
    # `done` with status `ready` then closes the stream (docs/ingest.md). `retrying`: a round of that
    # second phase failed (`error` says why) and the next is queued; `done` with an `error`: every
    # round failed, the document stays searchable by its words only.
    stage: Literal["queued", "parsing", "ocr", "chunking", "embedding", "storing", "sentences", "retrying", "done"]
    done: int = 0
    total: int = 0
    error: str | None = None
    existing_document_id: uuid.UUID | None = None
    eta_s: float | None = Field(
        None,
        description=(
            "Status `ready`, stage `embedding` (searchable by words, chunk vectors on the way): estimated seconds "
            "until meaning search covers the document; absent until the second phase has measured its pace."
        ),
    )
