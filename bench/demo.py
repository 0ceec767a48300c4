"""The walking skeleton's numbers: `up` readiness, process RSS, and demo-turn latency over HTTP/SSE.

    python bench/demo.py [--turns 30] [--out bench/results/demo.json]

Starts `policypal up` in a temporary data directory, uploads the example policy, then asks the
same kind of question N times on fresh threads and on one growing thread, measuring per turn:
POST → first SSE event, POST → terminal `response`. Prints p50/p95/p99 and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import psutil

from bench.harness import summary, timed_turn, upload_and_wait
from shared.runtime.launcher import launch_up

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = [
    "How long are job applicant records kept?",
    "How quickly must a breach be notified?",
    "How are hard drives disposed of?",
    "Who owns this policy?",
    "How long is CCTV footage kept?",
]


def rss_by_process(root_pid: int) -> dict[str, float]:
    out = {}
    for proc in psutil.Process(root_pid).children(recursive=True):
        cmd = proc.cmdline()
        name = (
            (cmd[cmd.index("--action") + 1] if "--action" in cmd else cmd[-1])
            if "policypal.cli" in cmd
            else proc.name()
        )
        out[f"{name}:{proc.pid}"] = round(proc.memory_info().rss / 2**20, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "demo.json")
    args = parser.parse_args(argv)
    system = launch_up(Path(tempfile.mkdtemp(prefix="pp-bench-")))
    try:
        client = httpx.Client(base_url=system.url, headers={"Authorization": f"Bearer {system.token}"}, timeout=120)
        ingest_started = time.perf_counter()
        doc = {"id": upload_and_wait(client, ROOT / "examples" / "data-retention-policy.pdf", "Policy")}
        ingest_s = time.perf_counter() - ingest_started
        warm = timed_turn(client, {"message": QUESTIONS[0], "action": "inquire", "tagged_doc_ids": [doc["id"]]})
        fresh_first, fresh_total, thread_first, thread_total = [], [], [], []
        thread_id = warm[2]["thread_id"]
        for i in range(args.turns):
            question = QUESTIONS[i % len(QUESTIONS)]
            first, total, _ = timed_turn(
                client, {"message": question, "action": "inquire", "tagged_doc_ids": [doc["id"]]}
            )
            fresh_first.append(first)
            fresh_total.append(total)
            first, total, _ = timed_turn(
                client,
                {"message": question, "action": "inquire", "thread_id": thread_id, "tagged_doc_ids": [doc["id"]]},
            )
            thread_first.append(first)
            thread_total.append(total)
        result: dict[str, Any] = {
            "up_ready_s": round(system.ready_s, 2),
            "first_ingest_s (includes model load)": round(ingest_s, 2),
            "first_turn_s (cold)": round(warm[1], 2),
            "new_thread": {"first_event": summary(fresh_first), "response": summary(fresh_total)},
            "same_thread": {"first_event": summary(thread_first), "response": summary(thread_total)},
            "rss_mb": rss_by_process(system.process.pid),
        }
    finally:
        system.stop()
    print(f"up ready: {result['up_ready_s']} s · first ingest {result['first_ingest_s (includes model load)']} s")
    print(f"{'turn':<12}{'metric':<14}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}")
    for label in ("new_thread", "same_thread"):
        for metric in ("first_event", "response"):
            s = result[label][metric]
            print(f"{label:<12}{metric:<14}{s['p50_ms']:>10}{s['p95_ms']:>10}{s['p99_ms']:>10}")
    ratio = result["same_thread"]["response"]["p50_ms"] / result["new_thread"]["response"]["p50_ms"]
    print(f"same-thread / new-thread response p50 ratio: {ratio:.2f}")
    print("RSS (MB):", json.dumps(result["rss_mb"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
