"""W3C `traceparent` propagation across gateway → NATS → workers.

With OpenTelemetry on, the traceparent is the current span's, so every publish made while
handling a message (or an HTTP request) continues its trace. With it off, a contextvar keeps a
hand-made traceparent so logs and the `/v1/chat` response header still tie a turn together.
"""

from __future__ import annotations

import contextvars
import re
import secrets

from opentelemetry import trace

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


def span_traceparent() -> str | None:
    """The current OpenTelemetry span as a traceparent; None when tracing is off or no span is open."""
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return f"00-{context.trace_id:032x}-{context.span_id:016x}-{int(context.trace_flags):02x}"


def _current_or_new() -> str:
    traceparent = current_traceparent.get()
    if traceparent is None:
        traceparent = new_traceparent()
        current_traceparent.set(traceparent)
    return traceparent


def outgoing_traceparent() -> str:
    return span_traceparent() or child_of(_current_or_new())


def turn_traceparent() -> str:
    """The traceparent of the request being handled: what a client quotes to find its trace."""
    return span_traceparent() or _current_or_new()


def current_trace_id() -> str | None:
    return trace_id(span_traceparent() or current_traceparent.get())
