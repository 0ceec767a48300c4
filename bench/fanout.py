"""SSE fan-out: many concurrent clients on one gateway process.

    policypal bench fanout [--clients 100 1000 10000] [--wave 1000] [--rate 1000] [--before COMMIT]

Starts `policypal up`, creates one conversation per client (marked running, so its stream stays
open), opens that many `GET /v1/threads/{id}/events` streams (`Last-Event-ID: 0`), `--wave` at
once, then publishes one status event per thread straight onto `pp.evt.thread.<id>` (`--rate`
events/s across all threads, or one burst) and measures publish → client receive latency.
`--before COMMIT` measures that commit's gateway first, in the same run. Reported per N, side by
side: stream setup (connect → response headers) p50/p99 of the first wave, relay latency p50/p99,
and the gateway's RSS growth per open idle stream. The clients are raw asyncio sockets (an HTTP
client per stream would cost more CPU than the gateway); they share the machine's cores with it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import nats
import psutil
import psycopg
from pydantic import BaseModel

from bench.harness import machine, percentile
from shared.contracts import ErrorEvent, StatusEvent
from shared.runtime.launcher import LaunchedSystem, launch_up

ROOT = Path(__file__).resolve().parent.parent
DEMO_TENANT = "00000000-0000-4000-8000-000000000001"
DEMO_USER = "00000000-0000-4000-8000-0000000000aa"


async def make_threads(admin_url: str, n: int) -> list[uuid.UUID]:
    threads = [uuid.uuid4() for _ in range(n)]
    async with await psycopg.AsyncConnection.connect(admin_url) as conn, conn.transaction():
        await conn.execute("SELECT set_config('app.tenant_id', %s, true)", (DEMO_TENANT,))
        async with conn.cursor() as cur:
            await cur.executemany(
                "INSERT INTO conversations (thread_id, tenant_id, user_id, status, current_run_id, run_started_at)"
                " VALUES (%s, %s, %s, 'running', %s, now())",
                [(t, DEMO_TENANT, DEMO_USER, uuid.uuid4()) for t in threads],
            )
    return threads


class Stream:
    """One SSE client on a raw socket: connect, send the request, read the response headers."""

    def __init__(self, thread_id: uuid.UUID) -> None:
        self.thread_id = thread_id
        self.setup_s = 0.0
        self.latency_s: float | None = None
        self.error: str | None = None
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self, host: str, port: int, token: str) -> None:
        started = time.perf_counter()
        self.reader, self.writer = await asyncio.open_connection(host, port)
        self.writer.write(
            f"GET /v1/threads/{self.thread_id}/events HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
            "Accept: text/event-stream\r\nLast-Event-ID: 0\r\n\r\n".encode()
        )
        status = await self.reader.readline()
        if b" 200 " not in status:
            self.error = status.decode().strip()  # the old relay answers 503 when consumer creation times out
        while (await self.reader.readline()) not in (b"\r\n", b""):
            pass
        self.setup_s = time.perf_counter() - started

    async def follow(self) -> None:
        """Read until the terminal event; record the bench event's publish → receive latency."""
        if self.reader is None or self.writer is None:
            raise RuntimeError("a stream is followed only once it is open")
        if self.error:
            self.writer.close()
            return
        async for line in self.reader:
            if line.startswith(b"data:"):
                data = json.loads(line[5:])
                if data.get("node") == "bench":
                    self.latency_s = time.time() - float(data["message"])
            elif line.startswith(b"event: error"):
                break
        self.writer.close()


def gateway_process(root_pid: int) -> psutil.Process:
    for proc in psutil.Process(root_pid).children(recursive=True):
        if "gateway" in proc.cmdline():
            return proc
    raise RuntimeError("no gateway process under policypal up")


async def open_all(streams: list[Stream], host: str, port: int, token: str, wave: int) -> None:
    for start in range(0, len(streams), wave):
        await asyncio.gather(*(s.open(host, port, token) for s in streams[start : start + wave]))


async def publish_all(
    nats_port: str, threads: list[uuid.UUID], make: Callable[[uuid.UUID], BaseModel], rate: float = 0.0
) -> None:
    """One event per thread; at `rate` events/s (0: as fast as the acks come back, a burst)."""
    nc = await nats.connect(f"nats://127.0.0.1:{nats_port}")
    js = nc.jetstream()
    started = time.perf_counter()
    for i, t in enumerate(threads):
        if rate:
            await asyncio.sleep(max(0.0, started + i / rate - time.perf_counter()))
        await js.publish(f"pp.evt.thread.{t}", make(t).model_dump_json().encode())
    await nc.close()


async def run(system: LaunchedSystem, n: int, wave: int, rate: float) -> dict:
    admin_url = f"postgresql://postgres@/postgres?host={system.data_dir / 'pg'}"
    threads = await make_threads(admin_url, n)
    gateway = gateway_process(system.process.pid)
    host, port = "127.0.0.1", int(system.url.rsplit(":", 1)[1])
    rss_before = gateway.memory_info().rss
    streams = [Stream(t) for t in threads]
    cpu_before = sum(gateway.cpu_times()[:2])
    await open_all(streams, host, port, system.token, wave)
    cpu_setup = sum(gateway.cpu_times()[:2]) - cpu_before
    readers = [asyncio.create_task(s.follow()) for s in streams]
    await asyncio.sleep(3.0)  # idle: every stream open, nothing published yet
    rss_open = gateway.memory_info().rss
    run_id = uuid.uuid4()
    cpu_before = sum(gateway.cpu_times()[:2])
    await publish_all(
        system.env["PP_NATS_PORT"],
        threads,
        lambda t: StatusEvent(thread_id=t, run_id=run_id, node="bench", message=repr(time.time())),
        rate,
    )
    deadline = time.monotonic() + 120
    opened = [s for s in streams if s.error is None]
    while sum(s.latency_s is not None for s in streams) < len(opened) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    cpu_relay = sum(gateway.cpu_times()[:2]) - cpu_before
    await publish_all(
        system.env["PP_NATS_PORT"],
        threads,
        lambda t: ErrorEvent(thread_id=t, run_id=run_id, code="bench_done", message="done"),
    )
    await asyncio.wait(readers, timeout=120)
    setup = [s.setup_s for s in streams[:wave] if s.error is None] or [float("nan")]
    latencies = [s.latency_s for s in streams if s.latency_s is not None]
    return {
        "clients": n,
        "opened_at_once": min(n, wave),
        "events_per_s": rate or "burst",
        "failed": sorted({s.error for s in streams if s.error}),
        "failed_streams": n - len(opened),
        "delivered": len(latencies),
        "stream_setup_ms": {
            "p50": round(statistics.median(setup) * 1000, 1),
            "p99": round(percentile(setup, 99) * 1000, 1),
        },
        "relay_ms": {
            "p50": round(statistics.median(latencies) * 1000, 1) if latencies else None,
            "p99": round(percentile(latencies, 99) * 1000, 1) if latencies else None,
        },
        "gateway_rss_mb": {"before": round(rss_before / 2**20, 1), "open": round(rss_open / 2**20, 1)},
        "gateway_cpu_ms_per_stream_setup": round(cpu_setup * 1000 / n, 2),
        "gateway_cpu_ms_per_relayed_event": round(cpu_relay * 1000 / max(1, len(latencies)), 2),
        "gateway_kb_per_idle_stream": round((rss_open - rss_before) / 1024 / n, 1),
    }


def print_table(results: list[dict]) -> None:
    heads = ("setup p50", "setup p99", "relay p50", "relay p99", "KB/stream", "CPU/setup", "CPU/event")
    print(f"{'clients':>8}{'at once':>8}{'failed':>8}{'delivered':>10}" + "".join(f"{h:>11}" for h in heads))
    for r in results:
        print(
            f"{r['clients']:>8}{r['opened_at_once']:>8}{r['failed_streams']:>8}{r['delivered']:>10}{r['stream_setup_ms']['p50']:>11}"
            f"{r['stream_setup_ms']['p99']:>11}{r['relay_ms']['p50']:>11}{r['relay_ms']['p99']:>11}"
            f"{r['gateway_kb_per_idle_stream']:>11}{r['gateway_cpu_ms_per_stream_setup']:>11}"
            f"{r['gateway_cpu_ms_per_relayed_event']:>11}"
        )
    print(f"events/s published: {results[0]['events_per_s']}")
    print("(setup and relay in ms; KB/stream = gateway RSS growth with every stream open and idle, / clients;")
    print(" CPU/setup, CPU/event = gateway process CPU ms per stream opened, per event relayed)")


def export_commit(commit: str) -> Path:
    target = Path(tempfile.mkdtemp(prefix=f"pp-fanout-{commit}-"))
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def measure(clients: list[int], wave: int, rate: float, cwd: Path | None) -> list[dict]:
    env = {"PP_RATE_LIMIT_USER_PER_MIN": "1000000", "PP_RATE_LIMIT_TENANT_PER_MIN": "1000000"}
    if cwd is not None:
        env["PYTHONPATH"] = str(cwd)
    system = launch_up(Path(tempfile.mkdtemp(prefix="pp-bench-fanout-")), env, cwd=cwd)
    try:
        return [asyncio.run(run(system, n, wave, rate)) for n in clients]
    finally:
        system.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--wave", type=int, default=1000, help="streams opened at once (the rest in further waves)")
    parser.add_argument(
        "--rate", type=float, default=1000.0, help="events/s published while the streams are open (0: one burst)"
    )
    parser.add_argument("--before", help="also measure this commit's gateway first, in the same run (e.g. cff4fcb)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "fanout.json")
    args = parser.parse_args(argv)
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    variants: dict[str, list[dict]] = {}
    if args.before:
        variants[f"before ({args.before})"] = measure(args.clients, args.wave, args.rate, export_commit(args.before))
    variants["after"] = measure(args.clients, args.wave, args.rate, None)
    print(f"machine: {machine()}")
    for name, results in variants.items():
        print(f"\n{name}")
        print_table(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": machine(), "variants": variants}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
