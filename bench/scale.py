"""Does adding inquire workers add throughput? Concurrent inquire turns with 1, 2, 4 worker processes.

    policypal bench scale [--workers 1 2 4] [--engines offline openai] [--turns 48] [--concurrency 16]
                          [--latency-ms 400] [--token-ms 5] [--resolvers 1]

Runs twice: with the offline engine (CPU-bound: on 2 cores it cannot scale), and with the OpenAI
provider against the repository's wire-level OpenAI server (tests/integration/openai_server.py)
answering every call after `--latency-ms` and streaming its tokens `--token-ms` apart: an I/O-bound
model, where throughput should grow with workers. Each worker count: `--turns` turns through
`POST /v1/chat`, `--concurrency` at once, each on a new thread; throughput = turns / wall time.
Extra workers are `policypal worker action --action inquire` processes started beside `up`'s own,
sharing its durable consumer.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil

from bench.harness import machine, summary, upload_and_wait
from bench.turn import batch, distributed_turn
from shared.runtime.launcher import LaunchedSystem, launch_up

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "How quickly must a breach be notified?"


@contextlib.contextmanager
def model_server(engine: str, latency_ms: float, token_ms: float) -> Iterator[dict[str, str]]:
    """The environment of the engine: nothing for offline, the wire-level OpenAI server for openai."""
    if engine == "offline":
        yield {"PP_LLM_PROVIDER": "offline"}
        return
    sys.path.insert(0, str(ROOT))
    from tests.integration.openai_server import API_KEY, openai_server

    with openai_server(latency_s=latency_ms / 1000, token_interval_s=token_ms / 1000) as server:
        yield {"PP_LLM_PROVIDER": "openai", "PP_OPENAI_API_KEY": API_KEY, "PP_OPENAI_BASE_URL": server.url}


def start_worker(system: LaunchedSystem, index: int, role: str = "inquire") -> subprocess.Popen:
    """One more worker (`inquire` or `resolver`) with the environment of `up`'s own; returns once it consumes."""
    sibling = next(p for p in psutil.Process(system.process.pid).children(recursive=True) if p.cmdline()[-1:] == [role])
    command = ["worker", "action", "--action", "inquire"] if role == "inquire" else ["worker", "resolver"]
    log_path = system.data_dir / f"{role}-{index}.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "policypal.cli", *command],
            env=sibling.environ(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + 120
    while "started" not in log_path.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    return proc


async def throughput(system: LaunchedSystem, body: dict, turns: int, concurrency: int) -> dict:
    headers = {"Authorization": f"Bearer {system.token}"}
    async with httpx.AsyncClient(base_url=system.url, headers=headers, timeout=300) as client:
        await batch(lambda: distributed_turn(client, body), concurrency, concurrency)  # warm every worker
        timings, wall = await batch(lambda: distributed_turn(client, body), turns, concurrency)
    return {"turns_per_s": round(turns / wall, 2), "turn": summary([t for _, t in timings])}


def run_engine(engine: str, args: argparse.Namespace) -> dict:
    results = {}
    with model_server(engine, args.latency_ms, args.token_ms) as env:
        env |= {"PP_RATE_LIMIT_USER_PER_MIN": "1000000", "PP_RATE_LIMIT_TENANT_PER_MIN": "1000000"}
        system = launch_up(Path(tempfile.mkdtemp(prefix=f"pp-bench-scale-{engine}-")), env)
        extra: list[subprocess.Popen] = []
        try:
            with httpx.Client(base_url=system.url, headers={"Authorization": f"Bearer {system.token}"}) as client:
                policy = upload_and_wait(client, ROOT / "examples" / "data-retention-policy.pdf", "Retention")
            body = {"message": QUESTION, "action": "inquire", "tagged_doc_ids": [policy]}
            extra += [start_worker(system, i + 2, "resolver") for i in range(args.resolvers - 1)]
            for workers in sorted(args.workers):
                while 1 + len(extra) - (args.resolvers - 1) < workers:
                    extra.append(start_worker(system, len(extra) + 2))
                results[workers] = asyncio.run(throughput(system, body, args.turns, args.concurrency))
                print(f"{engine}: {workers} inquire worker(s): {results[workers]}", flush=True)
        finally:
            for proc in extra:
                proc.terminate()
                proc.wait(30)
            system.stop()
    base = results[min(results)]["turns_per_s"]
    for r in results.values():
        r["speedup"] = round(r["turns_per_s"] / base, 2)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--engines", nargs="+", choices=["offline", "openai"], default=["offline", "openai"])
    parser.add_argument("--resolvers", type=int, default=1, help="resolver processes (the stage before inquire)")
    parser.add_argument("--turns", type=int, default=48)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency-ms", type=float, default=400.0, help="the OpenAI server's delay per call")
    parser.add_argument("--token-ms", type=float, default=5.0, help="between the OpenAI server's streamed deltas")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "scale.json")
    args = parser.parse_args(argv)
    results = {engine: run_engine(engine, args) for engine in args.engines}
    print(f"machine: {machine()}")
    print(f"{'engine':<9}{'workers':>8}{'turns/s':>9}{'speedup':>9}{'p50 ms':>9}{'p99 ms':>9}")
    for engine, rows in results.items():
        for workers, r in rows.items():
            t = r["turn"]
            print(f"{engine:<9}{workers:>8}{r['turns_per_s']:>9}{r['speedup']:>8}x{t['p50_ms']:>9}{t['p99_ms']:>9}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    settings = {k: getattr(args, k) for k in ("turns", "concurrency", "latency_ms", "token_ms", "resolvers")}
    args.out.write_text(json.dumps({"machine": machine(), "settings": settings, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
