"""OpenTelemetry tracing for every process, configured by the standard `OTEL_*` variables.

Off unless `OTEL_TRACES_EXPORTER` names an exporter (`otlp`, `console`): then no tracer provider
is installed, the API hands out non-recording spans, and no exporter thread runs — zero cost.
When on, each process reports as `policypal-<service>` (gateway, resolver, action-<name>,
retrieval, ingest, embedder); the OTLP/HTTP exporter reads `OTEL_EXPORTER_OTLP_ENDPOINT`,
`OTEL_EXPORTER_OTLP_HEADERS`, … itself.
"""

from __future__ import annotations

import atexit
import logging
import os

from opentelemetry import trace
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor

log = logging.getLogger(__name__)

SERVICE_PREFIX = "policypal-"
_provider: TracerProvider | None = None


def requested_exporters() -> list[str]:
    """The exporters `OTEL_TRACES_EXPORTER` asks for; empty means tracing is off."""
    if os.environ.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return []
    names = [n.strip().lower() for n in os.environ.get("OTEL_TRACES_EXPORTER", "none").split(",")]
    return [n for n in names if n and n != "none"]


def tracing_enabled() -> bool:
    return _provider is not None


def setup_tracing(service: str) -> TracerProvider | None:
    """Install the tracer provider of this process once; None (and nothing installed) when off."""
    global _provider
    if _provider is not None:
        return _provider
    exporters = requested_exporters()
    if not exporters:
        return None
    name = service if service.startswith(SERVICE_PREFIX) else SERVICE_PREFIX + service
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: name}))
    for exporter in exporters:
        if exporter == "otlp":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        elif exporter == "console":
            provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
        else:
            log.warning("OTEL_TRACES_EXPORTER=%s is not supported here (otlp, console or none)", exporter)
    trace.set_tracer_provider(provider)
    _provider = provider
    atexit.register(provider.shutdown)
    return provider


def flush_tracing() -> None:
    """Export what is buffered: called when a worker drains, before the process exits."""
    if _provider is not None:
        _provider.force_flush(timeout_millis=5000)


def tracer(name: str) -> trace.Tracer:
    return trace.get_tracer(name)
