"""The bus on FastStream, measured (`python -m bench.bus [--hops N] [--turns N] [--only …]`).

Five comparisons, each side by side in one run; results in bench/results/bus.json:
1. hop: publish a command → durable pull consumer → reply, raw nats-py fetch loop vs our
   FastStream subscriber (DeliveryPolicy middleware, explicit ack), p50/p99 over N messages,
   in alternating blocks so machine noise hits both alike;
2. tokens: a turn against the wire-level OpenAI server streaming ~100 tokens/s, with
   PP_TOKEN_WINDOW_MS=0 (one publish per token, as before) vs 50: events per turn and time to
   the last token;
3. tracing: turn latency with OpenTelemetry off vs exporting OTLP to a local receiver;
4. publish: a JetStream publish with a message id, and a core request-reply, raw nats-py vs
   FastStream's broker (bench/bus_publish.py);
5. stop: requests lost while one of two request-reply responders stops, nats-py's drain vs
   FastStream's subscriber stop (bench/bus_stop.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import httpx
from httpx_sse import connect_sse

from bench.harness import percentile
from shared.runtime.embedded import free_port, start_nats
from shared.runtime.launcher import launch_up

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "bus.json"
BLOCK = 250
WORDS = 100
QUIET = {"PP_RATE_LIMIT_USER_PER_MIN": "100000", "PP_RATE_LIMIT_TENANT_PER_MIN": "100000"}


def ms(values: list[float]) -> dict[str, float]:
    scaled = [v * 1000 for v in values]
    return {
        "p50_ms": round(statistics.median(scaled), 3),
        "p99_ms": round(percentile(scaled, 99), 3),
        "n": len(scaled),
    }


async def hops(n: int) -> dict:
    """Round trips through a durable consumer: raw nats-py vs FastStream, same stream and config."""
    from bench.bus_hops import HopRig

    server = start_nats(Path(tempfile.mkdtemp(prefix="pp-bench-bus-")), free_port())
    try:
        rig = await HopRig.open(server.url)
        raw: list[float] = []
        faststream: list[float] = []
        try:
            while len(raw) < n:
                raw += await rig.raw_block(BLOCK)
                faststream += await rig.faststream_block(BLOCK)
        finally:
            await rig.close()
    finally:
        server.stop()
    raw_ms, faststream_ms = ms(raw), ms(faststream)
    overhead = round(faststream_ms["p50_ms"] - raw_ms["p50_ms"], 3)
    return {"raw_nats_py": raw_ms, "faststream": faststream_ms, "overhead_p50_ms": overhead}


def sse_turn(client: httpx.Client, message: str) -> dict:
    """One turn on a new thread: SSE events by type, time to last token, total."""
    started = time.perf_counter()
    counts: dict[str, int] = {}
    last_token = None
    with connect_sse(client, "POST", "/v1/chat", json={"message": message, "action": "inquire"}) as source:
        for sse in source.iter_sse():
            if not sse.data:
                continue
            counts[sse.event] = counts.get(sse.event, 0) + 1
            if sse.event == "token":
                last_token = time.perf_counter() - started
            if sse.event in ("response", "error", "interrupt"):
                return {"counts": counts, "last_token_s": last_token, "total_s": time.perf_counter() - started}
    raise RuntimeError("stream ended without a terminal event")


def turns_on(env: dict[str, str], n: int, question: str) -> list[dict]:
    launched = launch_up(Path(tempfile.mkdtemp(prefix="pp-bench-bus-up-")), {**QUIET, **env})
    try:
        with httpx.Client(
            base_url=launched.url, headers={"Authorization": f"Bearer {launched.token}"}, timeout=120
        ) as client:
            from bench.harness import upload_and_wait

            upload_and_wait(client, ROOT / "examples" / "data-retention-policy.pdf", "Retention", "company_policy")
            sse_turn(client, question)  # warm-up
            return [sse_turn(client, question) for _ in range(n)]
    finally:
        launched.stop()


def tokens(n: int) -> dict:
    from tests.integration.openai_server import API_KEY, openai_server

    results = {}
    with openai_server() as server:
        server.extra_words, server.token_interval_s = WORDS, 0.01
        model = {"PP_LLM_PROVIDER": "openai", "PP_OPENAI_API_KEY": API_KEY, "PP_OPENAI_BASE_URL": server.url}
        for window in (0, 50):
            runs = turns_on({**model, "PP_TOKEN_WINDOW_MS": str(window)}, n, "How long are customer records kept?")
            results[f"window_{window}ms"] = {
                "token_events_per_turn": statistics.median(r["counts"].get("token", 0) for r in runs),
                "events_per_turn": statistics.median(sum(r["counts"].values()) for r in runs),
                "last_token": ms([r["last_token_s"] for r in runs if r["last_token_s"] is not None]),
                "turn": ms([r["total_s"] for r in runs]),
            }
    return results


def tracing(n: int) -> dict:
    from tests.e2e.otlp_receiver import OtlpReceiver

    question = "How long are job applicant records kept?"
    off = turns_on({}, n, question)
    with OtlpReceiver() as receiver:
        on = turns_on({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint}, n, question)
        spans = len(receiver.spans)
    off_ms, on_ms = ms([r["total_s"] for r in off]), ms([r["total_s"] for r in on])
    difference = round(100 * (on_ms["p50_ms"] / off_ms["p50_ms"] - 1), 1)
    return {"off": off_ms, "otlp": on_ms, "spans_received": spans, "p50_difference_pct": difference}


async def publishes(n: int) -> dict:
    """JetStream publish (with a message id) and core request-reply: raw nats-py vs FastStream's broker."""
    from bench.bus_publish import PublishRig

    server = start_nats(Path(tempfile.mkdtemp(prefix="pp-bench-publish-")), free_port())
    sides = ("raw_publish", "faststream_publish", "raw_request", "faststream_request")
    times: dict[str, list[float]] = {side: [] for side in sides}
    try:
        rig = await PublishRig.open(server.url)
        try:
            while len(times["raw_publish"]) < n:
                for side in sides:
                    times[side] += await getattr(rig, side)(BLOCK)
        finally:
            await rig.close()
    finally:
        server.stop()
    return {side: ms(values) for side, values in times.items()}


async def responder_stops() -> dict:
    """Requests lost while one of two responders stops: nats-py's drain vs FastStream's stop."""
    from bench.bus_stop import stop_comparison

    server = start_nats(Path(tempfile.mkdtemp(prefix="pp-bench-stop-")), free_port())
    try:
        return await stop_comparison(server.url)
    finally:
        server.stop()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="policypal bench bus", description=__doc__)
    parser.add_argument("--hops", type=int, default=2000, help="messages per side (≥ 2000 for the README)")
    parser.add_argument("--turns", type=int, default=15, help="turns per configuration")
    parser.add_argument("--only", choices=["hops", "publish", "tokens", "tracing", "stop"], action="append")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    parts = args.only or ["hops", "publish", "tokens", "tracing", "stop"]
    results: dict = {"run_id": str(uuid.uuid4()), "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if "hops" in parts:
        results["hop"] = asyncio.run(hops(args.hops))
    if "publish" in parts:
        results["publish"] = asyncio.run(publishes(args.hops))
    if "tokens" in parts:
        results["tokens"] = tokens(args.turns)
    if "tracing" in parts:
        results["tracing"] = tracing(args.turns)
    if "stop" in parts:
        results["stop"] = asyncio.run(responder_stops())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
