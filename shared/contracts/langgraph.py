"""Payloads of the LangGraph Agent Server surface (`/lg`), as `langgraph-sdk` 0.4 (Python) and
`@langchain/langgraph-sdk` 2.0 (JS) send and read them.

Requests are read as LangGraph's own server (langgraph-api) reads them: a field PolicyPal does not
know is ignored (`LgRequest`), so a client of a newer SDK version keeps working; `/v1` stays strict.
The fields the clients send are still listed, those PolicyPal does not act on (`config`, `context`,
`webhook`…) documented as ignored.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal, get_args

from pydantic import ConfigDict, Field, field_validator, model_validator

from shared.contracts.attachments import is_file_part
from shared.contracts.common import CHECKPOINT_ID, Action, Contract

# The one graph PolicyPal serves, and its one assistant: LangGraph assistants have UUIDs, and clients
# use either this one or the graph id. Both are in every checkpoint's metadata, as LangGraph's server writes them.
GRAPH_ID = "policypal"
ASSISTANT_UUID = str(uuid.uuid5(uuid.NAMESPACE_URL, "policypal:assistant:policypal"))
# `Command(goto=END)`: Agent Chat UI's "Mark as resolved".
END = "__end__"

StreamMode = Literal["values", "updates", "messages", "messages-tuple", "custom", "events", "debug", "tasks"]
MultitaskStrategy = Literal["reject", "enqueue", "interrupt", "rollback"]
RunStatus = Literal["pending", "running", "success", "error", "interrupted", "timeout"]
ThreadStatus = Literal["idle", "busy", "interrupted", "error"]
IGNORED = "Accepted for compatibility; PolicyPal does not act on it."


def normalize_modes(modes: Sequence[str]) -> list[str]:
    """`messages` is served as `messages-tuple` (PolicyPal streams the answer's tokens, not LangChain
    message events); no mode means `values`."""
    unknown = [m for m in modes if m not in get_args(StreamMode)]
    if unknown:
        raise ValueError(f"unknown stream_mode {unknown[0]!r}; one of {', '.join(get_args(StreamMode))}")
    return list(dict.fromkeys("messages-tuple" if m == "messages" else m for m in modes)) or ["values"]


class LgRequest(Contract):
    """A request body of `/lg`: unknown fields are ignored, as langgraph-api ignores them."""

    model_config = ConfigDict(extra="ignore")


class LgMessageIn(LgRequest):
    """A chat message as LangChain clients send it: `type` (human/user) or OpenAI-style `role`."""

    type: str | None = None
    role: str | None = None
    content: str | list[dict[str, Any]]
    id: str | None = None
    name: str | None = None
    additional_kwargs: dict[str, Any] | None = None
    response_metadata: dict[str, Any] | None = None
    example: bool | None = None

    @property
    def is_human(self) -> bool:
        return (self.type or self.role) in ("human", "user")

    @property
    def text(self) -> str:
        """String content, or the text parts of multimodal content (Agent Chat UI sends parts)."""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(str(part.get("text", "")) for part in self.content if part.get("type") == "text")

    @property
    def has_files(self) -> bool:
        """Whether files are attached (shared/contracts/attachments.py reads them)."""
        return not isinstance(self.content, str) and any(is_file_part(part) for part in self.content)


class LgInput(LgRequest):
    """Run input: the messages (the last human one is the turn) plus PolicyPal's chat options."""

    messages: list[LgMessageIn] = Field(min_length=1, max_length=200)
    action: Action | None = None
    tagged_doc_ids: list[uuid.UUID] = Field(default_factory=list, max_length=5)
    tagged_set_ids: list[uuid.UUID] = Field(default_factory=list, max_length=20)
    enable_web_search: bool = False
    tiptap_json: dict[str, Any] | None = None

    @field_validator("messages")
    @classmethod
    def _ends_with_human(cls, messages: list[LgMessageIn]) -> list[LgMessageIn]:
        last = messages[-1]
        if not last.is_human:
            raise ValueError("the last message must be the user's (type 'human' or role 'user')")
        if not last.text.strip() and not last.has_files:
            raise ValueError("the last message has no text and no attached file")
        if len(last.text) > 8000:
            raise ValueError("the last message is longer than 8000 characters")
        return messages


class LgCommand(LgRequest):
    """`Command(resume=…)`: the answer to the pending interrupt; `Command(goto="__end__")` closes it as a
    cancel. Any other `goto` and `update` are refused: they would bypass PolicyPal's graph."""

    resume: Any = None
    update: Any = None
    goto: Any = None

    @model_validator(mode="after")
    def _resume_or_end(self) -> LgCommand:
        if self.update is not None:
            raise ValueError("command.update is not supported (it would bypass PolicyPal's graph)")
        if self.goto is not None:
            if self.goto not in (END, [END], {"node": END}) or self.resume is not None:
                raise ValueError(f"command.goto may only be {END!r} (close the pending question), without resume")
        elif self.resume is None:
            raise ValueError("command.resume is required")
        return self

    @property
    def closes(self) -> bool:
        """`goto: "__end__"`: the pending question is cancelled."""
        return self.goto is not None


class LgCheckpointRef(LgRequest):
    """`checkpoint` of a run: where in the thread it starts (the thread is the run's own)."""

    checkpoint_id: str | None = Field(None, pattern=CHECKPOINT_ID)
    thread_id: str | None = None
    checkpoint_ns: str = ""
    checkpoint_map: dict[str, Any] | None = Field(None, description=IGNORED)

    @field_validator("checkpoint_ns")
    @classmethod
    def _root_namespace(cls, value: str) -> str:
        if value:
            raise ValueError("only the root namespace ('') has checkpoints here: PolicyPal's graph has no subgraphs")
        return value


class RunCreate(LgRequest):
    """Body of `POST /threads/{id}/runs`, `/runs/stream` and `/runs/wait`."""

    assistant_id: str = Field("policypal", max_length=100)
    input: dict[str, Any] | None = Field(
        None, description="`LgInput`: `{messages: [...], action?, tagged_doc_ids?, …}`"
    )
    command: LgCommand | None = None
    stream_mode: StreamMode | list[StreamMode] = "values"
    stream_resumable: bool | None = Field(None, description="Every stream is resumable for PP_EVENTS_MAX_AGE_S.")
    stream_subgraphs: bool | None = Field(None, description=IGNORED)
    multitask_strategy: MultitaskStrategy = "enqueue"
    if_not_exists: Literal["create", "reject"] = "reject"
    on_disconnect: Literal["cancel", "continue"] = Field(
        "continue", description="`cancel`: a client that disconnects before the run ends stops it."
    )
    metadata: dict[str, Any] | None = None
    config: dict[str, Any] | None = Field(None, description=IGNORED)
    context: dict[str, Any] | None = Field(None, description=IGNORED)
    interrupt_before: Any = Field(None, description=IGNORED)
    interrupt_after: Any = Field(None, description=IGNORED)
    feedback_keys: list[str] | None = Field(None, description=IGNORED)
    webhook: str | None = Field(None, description=IGNORED)
    checkpoint: LgCheckpointRef | None = Field(
        None, description="Start from this checkpoint: regenerate its turn (no input) or fork the thread (input)."
    )
    checkpoint_id: str | None = Field(None, pattern=CHECKPOINT_ID, description="The same as `checkpoint`.")
    checkpoint_during: bool | None = Field(None, description=IGNORED)
    durability: str | None = Field(None, description=IGNORED)
    on_completion: str | None = Field(None, description=IGNORED)
    after_seconds: float | None = Field(None, description=IGNORED)
    strict_resume: bool | None = Field(None, description=IGNORED)
    langsmith_tracer: dict[str, Any] | None = Field(None, description=IGNORED)

    @model_validator(mode="after")
    def _input_or_command(self) -> RunCreate:
        if self.command is not None:
            if self.input not in (None, {}):
                raise ValueError("give either input or command, not both")
        elif not self.input and self.from_checkpoint is None:
            raise ValueError(
                "input.messages with the user's message is required (or command.resume, or a checkpoint to regenerate)"
            )
        return self

    @property
    def from_checkpoint(self) -> str | None:
        """The checkpoint the run starts from (`checkpoint.checkpoint_id`, else `checkpoint_id`)."""
        if self.checkpoint is not None and self.checkpoint.checkpoint_id:
            return self.checkpoint.checkpoint_id
        return self.checkpoint_id

    @property
    def checkpoint_field(self) -> str:
        """The field that named `from_checkpoint`, for an error about it."""
        named = self.checkpoint is not None and self.checkpoint.checkpoint_id
        return "checkpoint.checkpoint_id" if named else "checkpoint_id"

    @property
    def regenerates(self) -> bool:
        """A run from a checkpoint without input re-runs that checkpoint's turn."""
        return self.command is None and not self.input and self.from_checkpoint is not None

    def turn_input(self) -> LgInput:
        """The input as a turn (raises pydantic's ValidationError, located under `input`)."""
        return LgInput.model_validate(self.input)

    @property
    def modes(self) -> list[str]:
        return normalize_modes([self.stream_mode] if isinstance(self.stream_mode, str) else self.stream_mode)


class ThreadCreate(LgRequest):
    thread_id: uuid.UUID | None = None
    metadata: dict[str, Any] | None = None
    if_exists: Literal["raise", "do_nothing"] = "raise"
    ttl: Any = Field(None, description=IGNORED)
    supersteps: Any = Field(None, description="Not supported: a thread starts empty.")
    graph_id: str | None = Field(None, description=IGNORED)

    @field_validator("supersteps")
    @classmethod
    def _no_supersteps(cls, value: Any) -> Any:
        if value:
            raise ValueError("supersteps are not supported; start the thread with a run")
        return value


class ThreadSearch(LgRequest):
    metadata: dict[str, Any] | None = None
    ids: list[uuid.UUID] | None = Field(None, max_length=100)
    values: dict[str, Any] | None = Field(None, description=IGNORED)
    status: ThreadStatus | None = None
    limit: int = Field(10, ge=1, le=100)
    offset: int = Field(0, ge=0, le=10_000)
    sort_by: Literal["thread_id", "status", "created_at", "updated_at"] | None = None
    sort_order: Literal["asc", "desc"] | None = None
    select: list[str] | None = Field(None, description=IGNORED)
    extract: Any = Field(None, description=IGNORED)


class ThreadPatch(LgRequest):
    metadata: dict[str, Any] = Field(default_factory=dict)
    ttl: Any = Field(None, description=IGNORED)


class HistoryRequest(LgRequest):
    limit: int = Field(10, ge=1, le=1000)
    before: dict[str, Any] | str | None = Field(None, description=IGNORED)
    metadata: dict[str, Any] | None = Field(None, description=IGNORED)
    checkpoint: dict[str, Any] | None = Field(None, description=IGNORED)


class AssistantSearch(LgRequest):
    graph_id: str | None = None
    name: str | None = None
    metadata: dict[str, Any] | None = None
    limit: int = Field(10, ge=1, le=1000)
    offset: int = Field(0, ge=0)
    sort_by: str | None = None
    sort_order: Literal["asc", "desc"] | None = None
    select: list[str] | None = None


class LgInterrupt(Contract):
    value: dict[str, Any]
    id: str


class LgCheckpoint(Contract):
    thread_id: str
    checkpoint_ns: str = ""
    checkpoint_id: str | None = None
    checkpoint_map: dict[str, Any] | None = None


class LgTask(Contract):
    id: str
    name: str
    error: str | None = None
    interrupts: list[LgInterrupt] = Field(default_factory=list)
    checkpoint: LgCheckpoint | None = None
    state: None = None
    result: dict[str, Any] | None = None


class LgState(Contract):
    values: dict[str, Any]
    next: list[str]
    tasks: list[LgTask]
    checkpoint: LgCheckpoint
    metadata: dict[str, Any]
    created_at: str | None
    parent_checkpoint: LgCheckpoint | None = None
    interrupts: list[LgInterrupt] = Field(default_factory=list)


class LgThread(Contract):
    thread_id: uuid.UUID
    created_at: datetime
    updated_at: datetime
    metadata: dict[str, Any]
    status: ThreadStatus
    values: dict[str, Any]
    interrupts: dict[str, list[LgInterrupt]] = Field(default_factory=dict)
    config: dict[str, Any] = Field(default_factory=dict)


class LgRun(Contract):
    run_id: uuid.UUID
    thread_id: uuid.UUID
    assistant_id: str
    created_at: datetime
    updated_at: datetime
    status: RunStatus
    metadata: dict[str, Any]
    kwargs: dict[str, Any]
    multitask_strategy: MultitaskStrategy


class LgAssistant(Contract):
    assistant_id: str
    graph_id: str
    name: str
    description: str | None
    config: dict[str, Any] = Field(default_factory=dict)
    context: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    version: int = 1
    created_at: datetime
    updated_at: datetime


class LgInfo(Contract):
    version: str
    langgraph_py_version: str
    flags: dict[str, bool]
    metadata: dict[str, Any] = Field(default_factory=dict)
