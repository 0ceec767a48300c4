"""The one place where every payload shape lives: bus commands, bus events, RPC and HTTP models.

Everything else imports these; nothing re-declares a payload.
"""

from shared.contracts.commands import (
    ActionCommand,
    ChatCommand,
    IngestCommand,
    ResumeCommand,
    ResumeValue,
    StopCommand,
)
from shared.contracts.common import ACTIONS, Action, Confidence, DocType, Visibility
from shared.contracts.events import (
    TERMINAL_EVENT_TYPES,
    Citation,
    ErrorEvent,
    EscalationEvent,
    IngestProgress,
    InterruptEvent,
    InterruptOption,
    ResponseEvent,
    StatusEvent,
    ThreadEvent,
    TokenEvent,
    parse_thread_event,
)
from shared.contracts.retrieval import (
    ChunkHit,
    RpcError,
    SampleRequest,
    SampleResponse,
    Scope,
    SearchRequest,
    SearchResponse,
)

__all__ = [
    "ACTIONS",
    "Action",
    "ActionCommand",
    "ChatCommand",
    "ChunkHit",
    "Citation",
    "Confidence",
    "DocType",
    "ErrorEvent",
    "EscalationEvent",
    "IngestCommand",
    "IngestProgress",
    "InterruptEvent",
    "InterruptOption",
    "ResponseEvent",
    "ResumeCommand",
    "ResumeValue",
    "RpcError",
    "SampleRequest",
    "SampleResponse",
    "Scope",
    "SearchRequest",
    "SearchResponse",
    "StatusEvent",
    "StopCommand",
    "TERMINAL_EVENT_TYPES",
    "ThreadEvent",
    "TokenEvent",
    "Visibility",
    "parse_thread_event",
]
