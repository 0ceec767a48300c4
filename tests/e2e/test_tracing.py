"""One turn is one OpenTelemetry trace across every process of `policypal up`.

The stack exports OTLP/HTTP to a receiver started by the test; the assertions read the decoded
spans: one trace per turn, the processes it crossed, their parent chain and the GenAI span.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from httpx_sse import connect_sse

from shared.runtime.launcher import launch_up
from tests.e2e.conftest import System
from tests.e2e.helpers import TERMINAL, ingest_demo_policy
from tests.e2e.otlp_receiver import OtlpReceiver, ReceivedSpan

pytestmark = pytest.mark.e2e

GATEWAY, RESOLVER = "policypal-gateway", "policypal-resolver"
ACTION, RETRIEVAL = "policypal-action-inquire", "policypal-retrieval"
SERVER_KIND = 2  # opentelemetry.proto.trace.v1.Span.SpanKind.SPAN_KIND_SERVER


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[System, OtlpReceiver]]:
    with OtlpReceiver() as receiver:
        launched = launch_up(
            tmp_path_factory.mktemp("traced"),
            {
                "PP_SECRET_KEY": "e2e-secret-0123456789abcdef0123456789",
                "OTEL_TRACES_EXPORTER": "otlp",
                "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
                "OTEL_BSP_SCHEDULE_DELAY": "200",
            },
        )
        try:
            yield System(launched), receiver
        finally:
            launched.stop()


def turn(client, message: str, policy_id: str) -> tuple[str, str]:
    """Ask, read the stream to its terminal event; the trace id from the `traceparent` header."""
    body = {"message": message, "action": "inquire", "tagged_doc_ids": [policy_id]}
    with connect_sse(client, "POST", "/v1/chat", json=body) as source:
        source.response.raise_for_status()
        trace_id = source.response.headers["traceparent"].split("-")[1]
        for sse in source.iter_sse():
            if sse.event in TERMINAL:
                return trace_id, sse.event
    raise AssertionError("the stream ended without a terminal event")


def ancestry(span: ReceivedSpan, spans: list[ReceivedSpan]) -> list[ReceivedSpan]:
    by_id = {s.span_id: s for s in spans}
    chain = [span]
    while chain[-1].parent_id and chain[-1].parent_id in by_id:
        chain.append(by_id[chain[-1].parent_id])
    return chain


def services_upwards(chain: list[ReceivedSpan]) -> list[str]:
    services: list[str] = []
    for span in chain:
        if not services or services[-1] != span.service:
            services.append(span.service)
    return services


def complete_trace(receiver: OtlpReceiver, trace_id: str, timeout_s: float = 30.0) -> list[ReceivedSpan]:
    """The trace's spans once the gateway's HTTP span (the root, ended last) has arrived."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        spans = receiver.of_trace(trace_id)
        if any(s.service == GATEWAY and s.kind == SERVER_KIND and not s.parent_id for s in spans):
            time.sleep(1.0)  # spans of other processes flushed in the same export round
            return receiver.of_trace(trace_id)
        time.sleep(0.2)
    raise AssertionError(f"trace {trace_id} incomplete: {sorted({s.service for s in receiver.of_trace(trace_id)})}")


def test_an_inquire_turn_is_one_trace_from_http_to_retrieval(traced):
    system, receiver = traced
    with system.client() as client:
        policy = ingest_demo_policy(client)
        first, ended = turn(client, "How long are job applicant records kept?", policy["id"])
        second, _ = turn(client, "What about CCTV footage?", policy["id"])
    assert ended == "response" and first != second

    spans = complete_trace(receiver, first)
    assert {GATEWAY, RESOLVER, ACTION, RETRIEVAL} <= {s.service for s in spans}
    assert len({s.trace_id for s in spans}) == 1

    [root] = [s for s in spans if not s.parent_id]
    assert root.service == GATEWAY and root.kind == SERVER_KIND and "/v1/chat" in root.name

    retrieval = [s for s in spans if s.service == RETRIEVAL]
    assert retrieval
    for span in retrieval:
        chain = ancestry(span, spans)
        assert chain[-1] == root, "a retrieval span is not connected to the HTTP request"
        assert services_upwards(chain) == [RETRIEVAL, ACTION, RESOLVER, GATEWAY]

    nodes = {s.attributes.get("langgraph.node") for s in spans if "langgraph.node" in s.attributes}
    assert {"intent_resolver", "inquire", "format_response"} <= nodes

    model_calls = [s for s in spans if "gen_ai.request.model" in s.attributes]
    assert model_calls
    assert all(isinstance(s.attributes.get("gen_ai.usage.input_tokens"), int) for s in model_calls)
    assert all(isinstance(s.attributes.get("gen_ai.usage.output_tokens"), int) for s in model_calls)

    # The second turn is its own trace: none of its consume spans hang in the first one.
    later = complete_trace(receiver, second)
    assert not {s.span_id for s in later} & {s.span_id for s in spans}
    resolver_roots = [
        s
        for s in spans
        if s.service == RESOLVER
        and s.parent_id
        and s.parent_id not in {x.span_id for x in spans if x.service == RESOLVER}
    ]
    assert len(resolver_roots) == 1, "more than one resolver consume in the first turn's trace"


def test_an_ingest_job_is_traced_from_the_upload_through_its_steps(traced):
    system, receiver = traced
    with system.client() as client:
        ingest_demo_policy(client)
    deadline = time.monotonic() + 30
    steps = {"ingest parse", "ingest chunk", "ingest embed", "ingest store"}
    while time.monotonic() < deadline:
        ingest = [s for s in receiver.spans if s.service == "policypal-ingest" and s.name in steps]
        if {s.name for s in ingest} >= steps:
            break
        time.sleep(0.2)
    assert {s.name for s in ingest} >= steps
    trace = receiver.of_trace(ingest[0].trace_id)
    [root] = [s for s in trace if not s.parent_id]
    assert root.service == GATEWAY and "/v1/documents" in root.name
