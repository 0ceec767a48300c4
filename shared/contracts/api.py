"""HTTP request and response bodies of the gateway (SPEC §9)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import Field

from shared.contracts.commands import ResumeValue
from shared.contracts.common import Action, Contract, DocType, Visibility
from shared.contracts.events import InterruptEvent


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


class MessageOut(Contract):
    id: uuid.UUID
    role: str
    content: str
    metadata: dict[str, Any]
    created_at: datetime


class HistoryOut(Contract):
    thread_id: uuid.UUID
    messages: list[MessageOut]
    pending_interrupt: InterruptEvent | None = None
