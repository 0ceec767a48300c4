"""HTTP request and response bodies of the gateway (docs/architecture.md §10)."""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from typing import Annotated, Any, Literal, Self

from pydantic import AfterValidator, Field, SerializerFunctionWrapHandler, model_serializer

from shared.contracts.commands import ResumeValue
from shared.contracts.common import Action, Contract, DocType, InterruptType, MessageKind, Visibility
from shared.contracts.events import InterruptEvent, InterruptOption, TurnResult


class ErrorDetail(Contract):
    code: str
    message: str
    details: Any | None = None


class ErrorBody(Contract):
    error: ErrorDetail


class ChatRequest(Contract):
    message: str = Field(min_length=1, max_length=8000)
    tiptap_json: dict[str, Any] | None = None
    thread_id: uuid.UUID | None = None
    tagged_doc_ids: list[uuid.UUID] = Field(default_factory=list, max_length=5)
    tagged_set_ids: list[uuid.UUID] = Field(default_factory=list, max_length=20)
    action: Action | None = None
    enable_web_search: bool = False
    attachment_ids: list[uuid.UUID] = Field(
        default_factory=list,
        max_length=5,
        description="Documents uploaded with this message (dropped or pasted on the composer): tagged for the"
        " turn, which waits until they are read.",
    )
    replace_last_turn: bool = Field(
        False, description="Edit and resend: the message replaces the last turn of the thread's current branch."
    )


class RegenerateRequest(Contract):
    """Run the last turn of the thread's current branch again, as a new branch beside its answer."""

    thread_id: uuid.UUID


class ResumeRequest(Contract):
    thread_id: uuid.UUID
    resume_value: ResumeValue


class DocumentOut(Contract):
    id: uuid.UUID
    title: str
    version: str
    display_name: str
    doc_type: DocType
    set_id: uuid.UUID | None = None
    set_name: str | None = None
    set_color: str | None = None
    filename: str
    mime: str | None = None
    sha256: str
    byte_size: int
    page_count: int
    chunk_count: int
    status: str
    error: str | None = None
    warning: str | None = Field(None, description="A non-fatal ingest finding, e.g. pages without text.")
    vectors_pending: int = Field(
        0,
        description=(
            "Chunks of a `ready` document still waiting for their vector: searchable by words (and its best word "
            "matches by meaning) while the second ingest phase adds them (docs/ingest.md)."
        ),
    )
    vectors_state: Literal["pending", "retrying", "failed", "complete"] | None = Field(
        None,
        description=(
            "A `ready` document's meaning search: `pending` (vectors on the way), `retrying` (a round of the second "
            "ingest phase failed, the next is queued), `failed` (every round failed: searchable by words only; an "
            "earlier complete version keeps answering untagged questions), `complete` (docs/ingest.md)."
        ),
    )
    vectors_error: str | None = Field(None, description="Why the last round of the second ingest phase failed.")
    visibility: Visibility
    created_at: datetime
    updated_at: datetime


class SetCreate(Contract):
    name: str = Field(min_length=1, max_length=100)
    color: str | None = Field(None, description="One of the 8 palette colours; next unused one if omitted.")


class SetOut(Contract):
    id: uuid.UUID
    name: str
    color: str
    document_count: int
    created_at: datetime


class ConversationOut(Contract):
    thread_id: uuid.UUID
    title: str | None
    kind: str
    status: str
    last_message_preview: str | None = None
    last_message_at: datetime | None = None
    created_at: datetime


class ConversationPage(Contract):
    items: list[ConversationOut]
    next_before: str | None = Field(None, description="Pass as `before` for the next (older) page.")


class ConversationPatch(Contract):
    title: str = Field(min_length=1, max_length=200)


class Profile(Contract):
    display_name: str | None = Field(None, max_length=200)
    email: str | None = Field(None, max_length=320, pattern=r"^[^@\s]+@[^@\s]+$")
    industry: str | None = Field(None, max_length=200)
    location: str | None = Field(None, max_length=200)
    company: str | None = Field(None, max_length=200)


class DocumentGroup(Contract):
    set_id: uuid.UUID | None
    set_name: str | None
    set_color: str | None
    documents: list[DocumentOut]


class DocumentList(Contract):
    groups: list[DocumentGroup]


class MessageMetadata(TurnResult):
    """What a history message records besides its text. An answer carries its turn's result (and
    whether PalAssist was cancelled, or the user stopped it), a user message what it tagged, a
    PalAssist prompt its question; the stage messages (`kind`) say which they are.

    Returned exactly as it was written: a field its writer did not set is left out, not defaulted."""

    kind: MessageKind | None = None
    run_id: uuid.UUID | None = None
    tiptap_json: dict[str, Any] | None = None
    tagged_doc_ids: list[uuid.UUID] = Field(default_factory=list)
    attachment_ids: list[uuid.UUID] = Field(default_factory=list)  # of tagged_doc_ids, the files sent with it
    interrupt_type: InterruptType | None = None
    options: list[InterruptOption] | None = None
    cancelled: bool = False
    stopped: bool = False

    @classmethod
    def answer(cls, result: TurnResult, **fields: Any) -> Self:
        """An assistant answer's metadata: the turn's whole result, less its text (the message's content)."""
        return cls.model_validate({**result.model_dump(exclude={"response"}), **fields})

    @model_serializer(mode="wrap")
    def _as_written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return {k: v for k, v in handler(self).items() if k in self.model_fields_set}


class MessageOut(Contract):
    id: uuid.UUID
    role: str
    content: str
    metadata: MessageMetadata
    created_at: datetime


class HistoryOut(Contract):
    thread_id: uuid.UUID
    title: str | None = Field(None, description="The conversation's title (from its first message, or renamed).")
    messages: list[MessageOut]
    pending_interrupt: InterruptEvent | None = None


class CancelOut(Contract):
    """`POST /v1/threads/{id}/cancel`: the stop is recorded and sent to the workers; the run's own
    stream (or `GET /v1/threads/{id}/events`) carries its last `response` event with `stopped: true`."""

    thread_id: uuid.UUID
    run_id: uuid.UUID
    status: Literal["stopping"] = "stopping"


class WidgetInit(Contract):
    """The widget's handshake: the tenant it is embedded for (its page's `Origin` is checked)."""

    tenant_id: uuid.UUID


class WidgetSession(Contract):
    token: str = Field(description="Customer session JWT: sub anon_<uuid>, role customer, tenant_id, ticket_id.")
    ticket_id: uuid.UUID
    ticket_number: int
    expires_in: int = Field(description="Seconds until the token expires.")


class WidgetChatRequest(Contract):
    message: str = Field(min_length=1, max_length=4000)


class TicketOut(Contract):
    id: uuid.UUID
    number: int
    customer_sub: str
    origin: str | None
    status: Literal["open", "pending_human", "resolved"]
    question: str | None
    ai_answer: str | None = Field(None, description="The AI's own answer, graded too unsure to send; agents only.")
    ai_confidence: float | None = Field(None, description="The grade (0–1) that sent the ticket to a human.")
    human_answer: str | None
    resolved_by: str | None
    created_at: datetime
    updated_at: datetime


class TicketList(Contract):
    items: list[TicketOut]


class TicketDetail(Contract):
    ticket: TicketOut
    messages: list[MessageOut]


class TicketResolve(Contract):
    answer: str = Field(min_length=1, max_length=8000, description="The human agent's answer to the customer.")


_ORIGIN = r"^https?://[A-Za-z0-9.-]+(:\d{1,5})?$"


def check_origin(value: str) -> str:
    """An origin as browsers send it: scheme://host[:port], lower-case, no path or trailing slash."""
    origin = value.strip().lower()
    if not re.fullmatch(_ORIGIN, origin):
        raise ValueError(f"{value!r} is not an origin like https://shop.example or http://localhost:3000")
    return origin


# Validated one by one, so a 422 names the index of each bad origin (the admin page marks that row).
Origin = Annotated[str, AfterValidator(check_origin)]


class TenantCreate(Contract):
    name: str = Field(min_length=1, max_length=200)
    allowed_domains: list[Origin] = Field(
        default_factory=list,
        max_length=50,
        description="Origins allowed to embed the widget, exact scheme://host[:port] (e.g. https://shop.example).",
    )


class TenantDomains(Contract):
    allowed_domains: list[Origin] = Field(max_length=50)


class TenantOut(Contract):
    id: uuid.UUID
    name: str
    allowed_domains: list[str]
    created_at: datetime


class ActionInfo(Contract):
    """`GET /v1/actions`: an action as the workspace UI shows it (its record: shared/actions)."""

    id: str
    label: str
    hint: str
    colour: str
