"""Tracing is off unless `OTEL_TRACES_EXPORTER` asks for it, and then costs nothing.

Each case runs in a fresh interpreter: the tracer provider is process-global and set once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

PROBE = """
import json, threading
from opentelemetry import trace
from shared.telemetry.otel import setup_tracing, tracing_enabled
from shared.telemetry.spans import traced_nodes

async def node(state):
    return {}

provider = setup_tracing("resolver")
span = trace.get_tracer("probe").start_span("probe")
print(json.dumps({
    "provider": type(trace.get_tracer_provider()).__name__,
    "enabled": tracing_enabled(),
    "recording": span.is_recording(),
    "wrapped": traced_nodes({"n": node})["n"] is not node,
    "threads": sorted(t.name for t in threading.enumerate()),
    "service": provider.resource.attributes["service.name"] if provider else None,
}))
"""


def probe(**env: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env={**clean, **env}, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_with_tracing_off_no_provider_no_exporter_thread_and_no_span_is_recorded():
    for env in ({}, {"OTEL_TRACES_EXPORTER": "none"}, {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "true"}):
        seen = probe(**env)
        assert seen["provider"] == "ProxyTracerProvider" and not seen["enabled"], env
        assert not seen["recording"] and not seen["wrapped"], env
        assert seen["threads"] == ["MainThread"], env


def test_with_otlp_the_process_reports_under_its_service_name():
    seen = probe(OTEL_TRACES_EXPORTER="otlp", OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9")
    assert seen["enabled"] and seen["recording"] and seen["wrapped"]
    assert seen["service"] == "policypal-resolver"
    assert any("BatchSpanProcessor" in name or "OtelBatch" in name for name in seen["threads"]), seen["threads"]
