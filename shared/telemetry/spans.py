"""The spans PolicyPal adds to what the libraries instrument: LangGraph nodes and model calls.

Model calls follow the OpenTelemetry GenAI semantic conventions (`gen_ai.*` attributes), so a
trace viewer shows the model, the task and the tokens of every call in a turn.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind

from shared.telemetry.otel import tracing_enabled

_tracer = trace.get_tracer("policypal")


def traced_nodes(nodes: Mapping[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """Each node wrapped in a span named after it; the nodes themselves when tracing is off."""
    if not tracing_enabled():
        return dict(nodes)
    return {name: _traced_node(name, node) for name, node in nodes.items()}


def _traced_node(name: str, node: Callable[..., Any]) -> Callable[..., Any]:
    # functools.wraps keeps the signature LangGraph inspects to decide what to pass the node.
    @functools.wraps(node)
    async def run(*args: Any, **kwargs: Any) -> Any:
        with _tracer.start_as_current_span(f"node {name}", attributes={"langgraph.node": name}):
            result = node(*args, **kwargs)
            return await result if inspect.isawaitable(result) else result

    return run


@contextmanager
def model_call(task: str, system: str, model: str, operation: str = "chat") -> Iterator[Span]:
    attributes = {
        "gen_ai.operation.name": operation,
        "gen_ai.system": system,
        "gen_ai.request.model": model,
        "policypal.task": task,
    }
    with _tracer.start_as_current_span(f"{operation} {model}", kind=SpanKind.CLIENT, attributes=attributes) as span:
        yield span


def record_usage(span: Span, model: str, input_tokens: int, output_tokens: int) -> None:
    span.set_attribute("gen_ai.response.model", model)
    span.set_attribute("gen_ai.usage.input_tokens", input_tokens)
    span.set_attribute("gen_ai.usage.output_tokens", output_tokens)
