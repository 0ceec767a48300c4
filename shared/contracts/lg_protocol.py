"""LangGraph's v3 thread protocol on `/lg` (`langchain-protocol`), as `langgraph-sdk` 0.4.14's and
`@langchain/langgraph-sdk` 1.15's `threads.stream()` send and read it.

A client posts commands `{id, method, params}` to `POST /threads/{id}/commands` and reads the
thread's events from `POST /threads/{id}/stream/events` (an `EventStreamRequest`). Requests are read
as the other `/lg` bodies are: unknown fields are ignored (`LgRequest`).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import Field

from shared.contracts.common import CHECKPOINT_ID
from shared.contracts.langgraph import LgRequest, MultitaskStrategy

# The channels of the protocol; `custom:<name>` narrows `custom` to one name.
Channel = Literal["values", "updates", "messages", "tools", "lifecycle", "input", "checkpoints", "tasks", "custom"]
CHANNELS: frozenset[str] = frozenset(get_args(Channel))
# The protocol's error codes (`ErrorResponse.error`).
ErrorCode = Literal[
    "invalid_argument",
    "unknown_command",
    "unknown_error",
    "no_such_run",
    "no_such_interrupt",
    "no_such_checkpoint",
    "permission_denied",
    "not_supported",
]


class CommandError(LgRequest):
    """A refused command's answer (with a 4xx): the protocol's error envelope, `error` one of its codes
    (`ErrorCode`, or `no_such_namespace`), `code` PolicyPal's own where it has a finer one."""

    type: Literal["error"] = "error"
    id: int
    error: str
    message: str
    code: str | None = None


class ProtocolCommand(LgRequest):
    """One command: `id` echoes back in the answer; `params` are read per `method`."""

    id: int = Field(ge=0, le=2**53)
    method: str = Field(min_length=1, max_length=100)
    params: dict[str, Any] = Field(default_factory=dict)


class RunStartParams(LgRequest):
    """`run.start`: a turn on the thread (created on its first run), as `POST /threads/{id}/runs`
    starts one; `config.configurable.checkpoint_id` forks from a checkpoint (the SDK's `forkFrom`)."""

    assistant_id: str = Field(max_length=100)
    input: dict[str, Any] | None = None
    config: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    multitask_strategy: MultitaskStrategy = "enqueue"

    @property
    def checkpoint_id(self) -> str | None:
        configurable = (self.config or {}).get("configurable")
        found = configurable.get("checkpoint_id") if isinstance(configurable, dict) else None
        return found if isinstance(found, str) and found else None


class RespondEntry(LgRequest):
    namespace: list[str] = Field(default_factory=list, max_length=20)
    interrupt_id: str = Field(min_length=1, max_length=200)
    response: Any = None


class InputRespondParams(LgRequest):
    """`input.respond`: the answer to the pending question, one (`interrupt_id`, `response`) or
    `responses` with one entry (PolicyPal asks one question at a time)."""

    namespace: list[str] = Field(default_factory=list, max_length=20)
    interrupt_id: str | None = Field(None, min_length=1, max_length=200)
    response: Any = None
    responses: list[RespondEntry] | None = Field(None, min_length=1, max_length=1)

    def answer(self) -> RespondEntry:
        if self.responses:
            return self.responses[0]
        if self.interrupt_id is None:
            raise ValueError("interrupt_id (or responses) is required")
        return RespondEntry(namespace=self.namespace, interrupt_id=self.interrupt_id, response=self.response)


class StateGetParams(LgRequest):
    namespace: list[str] = Field(default_factory=list, max_length=20)
    keys: list[str] | None = Field(None, max_length=50)


class InjectedMessage(LgRequest):
    """A message `input.inject` puts on the thread: PolicyPal takes the user's, as text."""

    role: Literal["user"]
    content: str = Field(min_length=1, max_length=8000)
    name: str | None = Field(None, max_length=200)


class InputInjectParams(LgRequest):
    namespace: list[str] = Field(default_factory=list, max_length=20)
    message: InjectedMessage


class ListCheckpointsParams(LgRequest):
    """`state.listCheckpoints`: `limit` checkpoints, newest first, older than `before` (a checkpoint id)."""

    namespace: list[str] = Field(default_factory=list, max_length=20)
    limit: int = Field(10, ge=1, le=1000)
    before: str | None = Field(None, pattern=CHECKPOINT_ID)


class EventStreamRequest(LgRequest):
    """The body of `POST /threads/{id}/stream/events`: which channels, which namespaces (prefixes;
    PolicyPal's graph has no subgraphs, so every event is at the root `[]`), and `since` (the `seq`
    of the last event the client has: the stream replays what came after it)."""

    channels: list[str] = Field(min_length=1, max_length=20)
    namespaces: list[list[str]] | None = Field(None, max_length=50)
    depth: int | None = Field(None, ge=0, le=100)
    since: int | None = Field(None, ge=0, le=2**62)

    def wants(self, channel: str, name: str | None = None) -> bool:
        """Whether an event of `channel` (a `custom` one named `name`) at the root namespace is asked for."""
        named = f"custom:{name}" if channel == "custom" and name else None
        if channel not in self.channels and named not in self.channels:
            return False
        return not self.namespaces or [] in self.namespaces

    def unknown_channels(self) -> list[str]:
        return [c for c in self.channels if c not in CHANNELS and not c.startswith("custom:")]
