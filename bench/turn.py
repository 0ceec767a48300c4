"""What the distributed design costs per turn: the full path vs the same graph in one process.

    policypal bench turn [--turns 40] [--concurrency 8] [--rounds 2]

Starts `policypal up` (offline engine), ingests the example retention policy, then runs inquire
turns, each on a new thread, two ways in interleaved rounds on the same machine in the same run:

- distributed: `POST /v1/chat` → gateway → `pp.cmd.chat` → resolver → `pp.cmd.action.inquire` →
  inquire worker (retrieval over its RPC) → `pp.evt.thread.<id>` → the gateway's relay → SSE;
- in-process: the same compiled graph with every node in this process (`bench/inprocess.py`),
  the same Postgres checkpointer, the same offline engine and retrieval service.

Sequentially and at `--concurrency`: p50/p95/p99 per turn, turns/s, POST → first SSE event, and the
overhead = distributed − in-process (p50 and p99) with its ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import psutil
from httpx_sse import aconnect_sse

from bench.harness import TERMINAL, machine, summary, upload_and_wait
from bench.inprocess import InProcessRunner
from shared.config import Settings
from shared.runtime.launcher import LaunchedSystem, launch_up

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "How quickly must a breach be notified?"
Turn = Callable[[], Awaitable[tuple[float, float]]]


def system_settings(system: LaunchedSystem) -> Settings:
    """The settings the launched system's workers run with (read from its gateway's environment)."""
    for proc in psutil.Process(system.process.pid).children(recursive=True):
        if "gateway" in proc.cmdline():
            os.environ.update({k: v for k, v in proc.environ().items() if k.startswith(("PP_", "OPENAI_"))})
            return Settings()
    raise RuntimeError("no gateway process under policypal up")


async def distributed_turn(
    client: httpx.AsyncClient, body: dict, handoffs: list[float] | None = None
) -> tuple[float, float]:
    """(POST → first SSE event, POST → terminal event) of one turn through the gateway; `handoffs`
    collects POST → the action stage's first event (the resolver's stage and its hand-off)."""
    started = time.perf_counter()
    first = handoff = None
    async with aconnect_sse(client, "POST", "/v1/chat", json=body) as source:
        async for sse in source.aiter_sse():
            if not sse.data:
                continue
            first = first or time.perf_counter() - started
            if handoff is None and json.loads(sse.data).get("node") == body["action"]:
                handoff = time.perf_counter() - started
                if handoffs is not None:
                    handoffs.append(handoff)
            if sse.event in TERMINAL:
                if sse.event != "response":
                    raise RuntimeError(f"turn ended with {sse.event}: {sse.data[:300]}")
                return first, time.perf_counter() - started
    raise RuntimeError("stream ended without a terminal event")


async def batch(turn: Turn, n: int, concurrency: int) -> tuple[list[tuple[float, float]], float]:
    """n turns, at most `concurrency` at once: their timings and the wall time of the batch."""
    gate = asyncio.Semaphore(concurrency)

    async def one() -> tuple[float, float]:
        async with gate:
            return await turn()

    started = time.perf_counter()
    timings = await asyncio.gather(*(one() for _ in range(n)))
    return list(timings), time.perf_counter() - started


def figures(timings: list[tuple[float, float]], wall: float) -> dict:
    return {
        "turn": summary([t for _, t in timings]),
        "first_event": summary([f for f, _ in timings]),
        "turns_per_s": round(len(timings) / wall, 2),
    }


async def measure(system: LaunchedSystem, body: dict, args: argparse.Namespace) -> dict:
    runner = await InProcessRunner.open(system_settings(system))
    settings = runner.settings
    headers = {"Authorization": f"Bearer {system.token}"}
    paths: dict[str, Turn] = {}
    async with httpx.AsyncClient(base_url=system.url, headers=headers, timeout=120) as client:
        handoffs: list[float] = []
        paths["distributed"] = lambda: distributed_turn(client, body, handoffs)

        async def in_process() -> tuple[float, float]:
            first, total, _ = await runner.turn(settings.demo_tenant_id, settings.demo_user_id, body)
            return first, total

        paths["in-process"] = in_process
        for turn in paths.values():  # warm both paths (models, pools, consumers)
            await batch(turn, 4, 1)
        handoffs.clear()
        out = {}
        for label, concurrency in (("sequential", 1), (f"concurrency {args.concurrency}", args.concurrency)):
            collected: dict[str, tuple[list, float]] = {name: ([], 0.0) for name in paths}
            for _ in range(args.rounds):  # interleaved rounds: both paths see the same machine load
                for name, turn in paths.items():
                    timings, wall = await batch(turn, args.turns // args.rounds, concurrency)
                    collected[name] = (collected[name][0] + timings, collected[name][1] + wall)
            out[label] = {name: figures(timings, wall) for name, (timings, wall) in collected.items()}
            out[label]["overhead"] = overhead(out[label]["distributed"], out[label]["in-process"])
            out[label]["distributed"]["action_stage_first_event"] = summary(handoffs)
            handoffs.clear()
    await runner.close()
    return out


def overhead(distributed: dict, in_process: dict) -> dict:
    d, p = distributed["turn"], in_process["turn"]
    return {
        "p50_ms": round(d["p50_ms"] - p["p50_ms"], 1),
        "p99_ms": round(d["p99_ms"] - p["p99_ms"], 1),
        "ratio_p50": round(d["p50_ms"] / p["p50_ms"], 2),
    }


def print_table(results: dict) -> None:
    print(f"{'':<16}{'path':<13}{'p50':>8}{'p95':>8}{'p99':>8}{'turns/s':>9}{'first p50':>11}  (ms)")
    for label, paths in results.items():
        for name in ("distributed", "in-process"):
            r = paths[name]
            t = r["turn"]
            print(
                f"{label:<16}{name:<13}{t['p50_ms']:>8}{t['p95_ms']:>8}{t['p99_ms']:>8}"
                f"{r['turns_per_s']:>9}{r['first_event']['p50_ms']:>11}"
            )
        handoff = paths["distributed"]["action_stage_first_event"]["p50_ms"]
        print(f"{label:<16}(distributed: POST → the action stage's first event, p50 {handoff} ms)")
        o = paths["overhead"]
        print(f"{label:<16}{'overhead':<13}{o['p50_ms']:>8}{'':>8}{o['p99_ms']:>8}   ratio p50 {o['ratio_p50']}x")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=40, help="per path and mode, split over the rounds")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "turn.json")
    args = parser.parse_args(argv)
    env = {"PP_RATE_LIMIT_USER_PER_MIN": "1000000", "PP_RATE_LIMIT_TENANT_PER_MIN": "1000000"}
    env["PP_LLM_PROVIDER"] = "offline"
    system = launch_up(Path(tempfile.mkdtemp(prefix="pp-bench-turn-")), env)
    try:
        with httpx.Client(base_url=system.url, headers={"Authorization": f"Bearer {system.token}"}, timeout=120) as c:
            policy = upload_and_wait(c, ROOT / "examples" / "data-retention-policy.pdf", "Retention", "company_policy")
        body = {"message": QUESTION, "action": "inquire", "tagged_doc_ids": [policy]}
        results = asyncio.run(measure(system, body, args))
    finally:
        system.stop()
    print(f"machine: {machine()}")
    print_table(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": machine(), "engine": "offline", "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
