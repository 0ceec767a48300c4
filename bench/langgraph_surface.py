"""The LangGraph surface (`/lg`, driven by the real `langgraph-sdk`) against `/v1/chat`, side by side.

    python bench/langgraph_surface.py [--turns 20]

Starts `policypal up`, uploads the example policy, then alternates the same inquire turn on a fresh
thread through `/v1/chat` (httpx-sse) and through `client.runs.stream` (values + updates +
messages-tuple), so both see the same machine load. Also times replaying a finished run from the
start (`join_stream`, `Last-Event-ID: -1`). Prints p50/p95/p99 and the /lg ÷ /v1 ratios and writes
bench/results/langgraph_surface.json.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient

from bench.harness import summary, timed_turn, upload_and_wait
from shared.runtime.launcher import launch_up

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "How long are job applicant records kept?"


def lg_turn(client: SyncLangGraphClient, doc_id: str) -> tuple[float, float, str, str]:
    """(seconds to the first event, seconds to the end of the stream, thread id, run id)."""
    thread = client.threads.create()["thread_id"]
    started = time.perf_counter()
    first: float | None = None
    run_id: str | None = None
    body: dict[str, Any] = {
        "messages": [{"type": "human", "content": QUESTION}],
        "action": "inquire",
        "tagged_doc_ids": [doc_id],
    }
    for part in client.runs.stream(
        thread, "policypal", input=body, stream_mode=["values", "updates", "messages-tuple"]
    ):
        first = first or time.perf_counter() - started
        run_id = run_id or part.data["run_id"]
        if part.event == "error":
            raise RuntimeError(part.data)
    if first is None or run_id is None:
        raise RuntimeError("the run's stream ended without an event")
    return first, time.perf_counter() - started, thread, run_id


def replay(client: SyncLangGraphClient, thread: str, run_id: str) -> float:
    started = time.perf_counter()
    events = list(client.runs.join_stream(thread, run_id, last_event_id="-1", stream_mode=["values", "messages-tuple"]))
    assert events and events[0].event == "metadata"
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "langgraph_surface.json")
    args = parser.parse_args(argv)
    system = launch_up(Path(tempfile.mkdtemp(prefix="pp-bench-lg-")), {"PP_RATE_LIMIT_USER_PER_MIN": "100000"})
    try:
        http = httpx.Client(base_url=system.url, headers={"Authorization": f"Bearer {system.token}"}, timeout=120)
        doc = upload_and_wait(http, ROOT / "examples" / "data-retention-policy.pdf", "Retention", "company_policy")
        sdk = get_sync_client(url=f"{system.url}/lg", api_key=system.token)
        timed_turn(http, {"message": QUESTION, "action": "inquire", "tagged_doc_ids": [doc]})  # warm both paths
        lg_turn(sdk, doc)
        v1_first, v1_end, lg_first, lg_end, replays = [], [], [], [], []
        for _ in range(args.turns):
            first, end, data = timed_turn(http, {"message": QUESTION, "action": "inquire", "tagged_doc_ids": [doc]})
            assert data["event"] == "response", data
            v1_first.append(first)
            v1_end.append(end)
            first, end, thread, run_id = lg_turn(sdk, doc)
            lg_first.append(first)
            lg_end.append(end)
            replays.append(replay(sdk, thread, run_id))
        results: dict[str, Any] = {
            "v1_chat": {"first_event": summary(v1_first), "end": summary(v1_end)},
            "lg_runs_stream": {"first_event": summary(lg_first), "end": summary(lg_end)},
            "lg_join_stream_replay_from_start": summary(replays),
        }
        results["ratio_lg_over_v1_p50"] = {
            key: round(results["lg_runs_stream"][key]["p50_ms"] / results["v1_chat"][key]["p50_ms"], 2)
            for key in ("first_event", "end")
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n")
        print(json.dumps(results, indent=2))
    finally:
        system.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
