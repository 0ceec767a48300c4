"""SSE fan-out (SPEC §11 "fanout"): many concurrent clients on one gateway process.

    python bench/fanout.py [--clients 100 1000]

Starts `policypal up`, creates one conversation per client, opens that many
`GET /v1/threads/{id}/events` streams at once, then publishes one status event per thread
straight onto `pp.evt.thread.<id>` and measures publish → client receive latency. Each run of
N clients is reported side by side (p50/p99 of stream setup and relay latency).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import httpx
import nats
import psycopg
from harness import percentile

from shared.contracts import ErrorEvent, StatusEvent
from shared.runtime.launcher import launch_up

ROOT = Path(__file__).resolve().parent.parent
DEMO_TENANT = "00000000-0000-4000-8000-000000000001"
DEMO_USER = "00000000-0000-4000-8000-0000000000aa"


async def make_threads(admin_url: str, n: int) -> list[uuid.UUID]:
    threads = [uuid.uuid4() for _ in range(n)]
    async with await psycopg.AsyncConnection.connect(admin_url) as conn, conn.transaction():
        await conn.execute("SELECT set_config('app.tenant_id', %s, true)", (DEMO_TENANT,))
        async with conn.cursor() as cur:
            await cur.executemany(
                "INSERT INTO conversations (thread_id, tenant_id, user_id) VALUES (%s, %s, %s)",
                [(t, DEMO_TENANT, DEMO_USER) for t in threads],
            )
    return threads


async def client(http: httpx.AsyncClient, thread_id: uuid.UUID, ready: list, received: dict, opened: asyncio.Event):
    started = time.perf_counter()
    async with http.stream("GET", f"/v1/threads/{thread_id}/events", headers={"Last-Event-ID": "0"}) as response:
        ready.append(time.perf_counter() - started)
        if len(ready) == received["_n"]:
            opened.set()
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                data = json.loads(line[5:])
                if data.get("node") == "bench":
                    received[thread_id] = time.time() - float(data["message"])
            if line.startswith("event: error"):
                return


async def run(system, n: int) -> dict:
    admin_url = f"postgresql://postgres@/postgres?host={system.data_dir / 'pg'}"
    threads = await make_threads(admin_url, n)
    limits = httpx.Limits(max_connections=n + 10, max_keepalive_connections=n + 10)
    headers = {"Authorization": f"Bearer {system.token}"}
    ready: list[float] = []
    received: dict = {"_n": n}
    opened = asyncio.Event()
    async with httpx.AsyncClient(base_url=system.url, headers=headers, limits=limits, timeout=300) as http:
        tasks = [asyncio.create_task(client(http, t, ready, received, opened)) for t in threads]
        await asyncio.wait_for(opened.wait(), 300)
        await asyncio.sleep(1.0)  # let every ordered consumer finish its initial (empty) replay
        nc = await nats.connect(f"nats://127.0.0.1:{system.env['PP_NATS_PORT']}")
        js = nc.jetstream()
        run_id = uuid.uuid4()
        for t in threads:
            event = StatusEvent(thread_id=t, run_id=run_id, node="bench", message=repr(time.time()))
            await js.publish(f"pp.evt.thread.{t}", event.model_dump_json().encode())
        deadline = time.monotonic() + 120
        while len(received) - 1 < n and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        for t in threads:
            end = ErrorEvent(thread_id=t, run_id=run_id, code="bench_done", message="done")
            await js.publish(f"pp.evt.thread.{t}", end.model_dump_json().encode())
        await asyncio.wait(tasks, timeout=120)
        await nc.close()
    latencies = [v for k, v in received.items() if k != "_n"]
    return {
        "clients": n,
        "delivered": len(latencies),
        "stream_setup_ms": {
            "p50": round(statistics.median(ready) * 1000, 1),
            "p99": round(percentile(ready, 99) * 1000, 1),
        },
        "relay_ms": {
            "p50": round(statistics.median(latencies) * 1000, 1),
            "p99": round(percentile(latencies, 99) * 1000, 1),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "fanout.json")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    system = launch_up(
        Path(tempfile.mkdtemp(prefix="pp-bench-fanout-")),
        {"PP_RATE_LIMIT_USER_PER_MIN": "100000", "PP_RATE_LIMIT_TENANT_PER_MIN": "100000"},
    )
    try:
        results = [asyncio.run(run(system, n)) for n in args.clients]
    finally:
        system.stop()
    print(f"{'clients':>8}{'delivered':>10}{'setup p50':>11}{'setup p99':>11}{'relay p50':>11}{'relay p99':>11}  (ms)")
    for r in results:
        print(
            f"{r['clients']:>8}{r['delivered']:>10}{r['stream_setup_ms']['p50']:>11}{r['stream_setup_ms']['p99']:>11}"
            f"{r['relay_ms']['p50']:>11}{r['relay_ms']['p99']:>11}"
        )
    if len(results) > 1:
        print(
            f"relay p50 ratio {results[-1]['clients']}/{results[0]['clients']} clients: "
            f"{results[-1]['relay_ms']['p50'] / max(results[0]['relay_ms']['p50'], 0.001):.1f}x"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
