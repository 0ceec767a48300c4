"""Commands on the `PP_COMMANDS` work queue (`pp.cmd.*`)."""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import Field

from shared.contracts.common import (
    CHECKPOINT_ID,
    Action,
    Contract,
    DocType,
    Envelope,
    InterruptType,
    ResumeType,
    Visibility,
)


class ChatCommand(Envelope):
    """`pp.cmd.chat`: one user turn, consumed by the resolver."""

    thread_id: uuid.UUID
    message: str = Field(min_length=1, max_length=8000)
    tiptap_json: dict[str, Any] | None = None
    tagged_doc_ids: list[uuid.UUID] = Field(default_factory=list, max_length=5)
    tagged_set_ids: list[uuid.UUID] = Field(default_factory=list, max_length=20)
    action: Action | None = None
    enable_web_search: bool = False
    # Files attached to the message, already among `tagged_doc_ids` and queued for ingest: the
    # resolver waits until they are read before the turn runs (services/resolver/attachments.py).
    attachment_ids: list[uuid.UUID] = Field(default_factory=list, max_length=5)
    # Regenerate, edit and resend: the turn starts from this checkpoint of the thread instead of its
    # newest, on a new branch (shared/graph/branches.py).
    checkpoint_id: str | None = Field(None, pattern=CHECKPOINT_ID)


class ResumeValue(Contract):
    """The user's answer to a PalAssist interrupt (docs/architecture.md §7.4)."""

    type: ResumeType
    value: Any = None


# The answer type each kind of question is resumed with (besides `cancel`); a human agent answers an escalation.
ANSWER_TYPE: dict[InterruptType, ResumeType] = {
    "action_choice": "action_choice",
    "doc_choice": "doc_choice",
    "text_input": "text_input",
    "retrieval_low": "retrieval_choice",
    "escalation": "human_answer",
}


class ResumeCommand(Envelope):
    """`pp.cmd.resume`: continues the stage holding the thread's pending interrupt."""

    thread_id: uuid.UUID
    resume_value: ResumeValue
    # A question waiting at an older checkpoint (one answered since, on another branch): the stage
    # takes the answer there and goes on as a new branch, as LangGraph's resume with a checkpoint does.
    checkpoint_id: str | None = Field(None, pattern=CHECKPOINT_ID)


class ActionCommand(Envelope):
    """`pp.cmd.action.<action>`: the resolver hands a run to an action's workers."""

    thread_id: uuid.UUID
    action: Action
    resume_value: ResumeValue | None = None
    checkpoint_id: str | None = Field(None, pattern=CHECKPOINT_ID)  # a resume's, when it answers on a branch


class IngestCommand(Envelope):
    """`pp.cmd.ingest`: public integrator contract (docs/bus.md, "Ingest a document").

    The file must already be in the `pp-uploads` object store under `object_name`.
    `document_id` is optional: the gateway sets it; an integrator may choose one to know
    the `pp.evt.ingest.<document_id>` subject in advance, otherwise it is derived from
    tenant and object name so that a redelivered job maps to the same document.
    """

    object_name: str = Field(min_length=1, max_length=1024)
    filename: str = Field(min_length=1, max_length=512)
    title: str = Field(min_length=1, max_length=300)
    version: str = Field("1", min_length=1, max_length=100)
    doc_type: DocType = "regulatory_source"
    set_name: str | None = Field(None, min_length=1, max_length=100)
    visibility: Visibility = "private"
    document_id: uuid.UUID | None = None
    keep_duplicate: bool = Field(
        False,
        description=(
            "Keep a second copy of bytes the user already has under another title. Without it such a job, or the "
            "same bytes, title and version again, ends in one `duplicate` event naming the existing document."
        ),
    )


class CompleteIndexCommand(Envelope):
    """`pp.cmd.complete_index`: the second phase of a document's ingest (docs/ingest.md).

    Published by the ingest worker once the document is `ready` (searchable): the vectors of its
    chunks' sentences, which the offline engine ranks, are computed and stored in the background
    at the embedder's lowest priority, so they never delay another document's way to `ready`.
    """

    document_id: uuid.UUID


class StopCommand(Envelope):
    """`pp.ctl.stop` (core NATS): the user stopped run `run_id` on `thread_id` (POST .../cancel)."""

    thread_id: uuid.UUID
