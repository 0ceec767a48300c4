"""W3C `traceparent` propagation across gateway → NATS → workers.

The current trace context lives in a contextvar so that every publish made while handling a
message carries the trace of the request that caused it.
"""

from __future__ import annotations

import contextvars
import re
import secrets

TRACEPARENT = "traceparent"
_TRACEPARENT_RE = re.compile(r"^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")

current_traceparent: contextvars.ContextVar[str | None] = contextvars.ContextVar("current_traceparent", default=None)


def new_traceparent() -> str:
    return f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01"


def child_of(parent: str | None) -> str:
    """A new span id under the parent's trace, or a fresh trace when the parent is invalid."""
    match = _TRACEPARENT_RE.match(parent or "")
    if not match:
        return new_traceparent()
    return f"00-{match.group(1)}-{secrets.token_hex(8)}-{match.group(3)}"


def trace_id(traceparent: str | None) -> str | None:
    match = _TRACEPARENT_RE.match(traceparent or "")
    return match.group(1) if match else None


def outgoing_traceparent() -> str:
    return child_of(current_traceparent.get())
