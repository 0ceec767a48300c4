"""What the benchmark scripts share: percentiles, latency summaries, and one timed chat turn over SSE."""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from pathlib import Path

import httpx
from httpx_sse import connect_sse

from shared.config import Settings

TERMINAL = ("response", "error", "interrupt")


def machine() -> str:
    """One line naming the machine a benchmark ran on (its numbers mean little without it)."""
    with open("/proc/meminfo") as meminfo:
        total_kb = int(meminfo.readline().split()[1])
    cpuinfo = Path("/proc/cpuinfo").read_text().splitlines()
    cpu = next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), "")
    return f"{os.cpu_count()} cores ({cpu}), {total_kb / 2**20:.0f} GiB RAM, {platform.platform()}"


def admin_url(settings: Settings) -> str:
    """The database URL a bench sets its tenant up with (a bench's platform always has one)."""
    if settings.admin_url is None:
        raise SystemExit("this bench needs PP_DATABASE_URL (or PP_DATABASE_ADMIN_URL)")
    return settings.admin_url


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    """p50/p95/p99 in milliseconds of durations given in seconds."""
    ms = [v * 1000 for v in values]
    return {
        "p50_ms": round(statistics.median(ms), 1),
        "p95_ms": round(percentile(ms, 95), 1),
        "p99_ms": round(percentile(ms, 99), 1),
        "n": len(ms),
    }


def upload_and_wait(client: httpx.Client, path: Path, title: str, doc_type: str = "regulatory_source") -> str:
    """Upload a document and poll until ingestion ends; returns its id."""
    with path.open("rb") as fh:
        doc = client.post("/v1/documents", files={"file": (path.name, fh)}, data={"title": title, "doc_type": doc_type})
    doc_id = doc.json()["id"]
    while client.get(f"/v1/documents/{doc_id}").json()["status"] not in ("ready", "failed"):
        time.sleep(0.2)
    return doc_id


def timed_turn(client: httpx.Client, body: dict) -> tuple[float, float, dict]:
    """(seconds to the first SSE event, seconds to the terminal event, the terminal event's data)."""
    started = time.perf_counter()
    first = None
    with connect_sse(client, "POST", "/v1/chat", json=body) as source:
        for sse in source.iter_sse():
            if not sse.data:
                continue
            first = first or time.perf_counter() - started
            if sse.event in TERMINAL:
                return first, time.perf_counter() - started, {"event": sse.event, **json.loads(sse.data)}
    raise RuntimeError("stream ended without a terminal event")
