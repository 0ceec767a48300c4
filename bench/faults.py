"""The fault campaign of issue 20, run against `policypal up` under a steady load of turns and uploads.

    policypal bench faults [--trials 25] [--rows kill-resolver,kill-nats,…] [--soak-minutes 10]
    python -m bench.faults --quick        # a few trials of each row, minutes in all

Rows: SIGKILL of every worker kind mid-stage (and of the inquire worker right after its terminal
publish), SIGKILL of the embedded nats-server and Postgres (restarted by `up`), an external Postgres
down for 10 s and 120 s, a rolling SIGTERM of every worker, and a soak of many users. Each row
reports trials, turns, completed, errored, lost, duplicated (counted on the bus), 5xx and the
recovery time; the table goes to stdout and `bench/results/faults.json`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform as machine
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil

from bench.fault_audit import RowCount, count_row, events_by_run, nats_server, postmaster, tree_rss_mb, worker
from bench.fault_load import Load
from bench.harness import summary
from shared.config import Settings
from shared.runtime.endpoints import read_endpoints
from shared.runtime.launcher import LaunchedSystem, launch_up
from shared.runtime.platform import start_platform

ROOT = Path(__file__).resolve().parent.parent
PDF = ROOT / "examples" / "data-retention-policy.pdf"
UPLOAD = ROOT / "examples" / "marketing-email.pdf"
ENV = {
    "PP_RATE_LIMIT_USER_PER_MIN": "100000",
    "PP_RATE_LIMIT_TENANT_PER_MIN": "100000",
    "PP_SECRET_KEY": "faults-bench-secret-0123456789abcdef0123",
}
# The status nodes during which each worker kind holds the turn's command.
STAGES = {
    ("worker", "resolver"): {"intent_resolver", "doc_resolver", "validate_inputs"},
    ("--action", "inquire"): {"inquire", "format_response"},
}
Fault = Callable[["Campaign", RowCount], Awaitable[None]]


def platform_nats_url(data_dir: Path) -> str:
    """The NATS URL of the platform `policypal up` runs from `data_dir` (written once it is ready)."""
    endpoints = read_endpoints(data_dir)
    if endpoints is None:
        raise RuntimeError(f"no readable endpoints file in {data_dir}")
    return endpoints.nats_url


def started(campaign: Campaign | None) -> Campaign:
    """The campaign the load's body set up; None means the load ended before its body ran."""
    if campaign is None:
        raise RuntimeError("the steady load ended before its campaign started")
    return campaign


@dataclass
class Campaign:
    system: LaunchedSystem
    load: Load
    trials: int
    rows: list[tuple[RowCount, int, int, int, int]] = field(default_factory=list)

    @property
    def pid(self) -> int:
        return self.system.process.pid

    async def ready(self, client: httpx.AsyncClient, since: float) -> float:
        """Seconds from `since` until /readyz answers 200."""
        while True:
            try:
                if (await client.get("/readyz")).status_code == 200:
                    return time.monotonic() - since
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.1)

    async def run_row(self, row: RowCount, fault: Fault) -> None:
        first_turn, first_upload = len(self.load.turns), len(self.load.uploads)
        await fault(self, row)
        last_turn, last_upload = len(self.load.turns), len(self.load.uploads)
        await settle(self.load, last_turn, last_upload)
        self.rows.append((row, first_turn, last_turn, first_upload, last_upload))
        print(f"  {row.fault}: done", flush=True)


async def settle(load: Load, turns: int, uploads: int, timeout_s: float = 400.0) -> None:
    """Wait until the first `turns` turns and `uploads` uploads have ended."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        turns_ended = all(t.ended is not None for t in load.turns[:turns])
        if turns_ended and all(u.ended is not None for u in load.uploads[:uploads]):
            return
        await asyncio.sleep(0.2)


async def turn_ended(load: Load, run_id: str, since: float) -> float | None:
    """Seconds from `since` until the client saw the run's terminal event (None: it never did)."""
    while True:
        turn = next((t for t in load.turns if t.run_id == run_id), None)
        if turn is not None and turn.ended is not None:
            return turn.ended - since if turn.terminal else None
        await asyncio.sleep(0.05)


def kill_mid_stage(tail: tuple[str, str]) -> Fault:
    nodes = STAGES[tail]

    async def fault(campaign: Campaign, row: RowCount) -> None:
        for _ in range(campaign.trials):
            event = await campaign.load.next_event(lambda name, data: name == "status" and data.get("node") in nodes)
            victim = worker(campaign.pid, *tail)
            killed_at = time.monotonic()
            victim.kill()
            recovered = await turn_ended(campaign.load, event["run_id"], killed_at)
            if recovered is None:
                row.notes.append(f"run {event['run_id']}: the client saw no terminal event")
            else:
                row.recovery_s.append(recovered)
            await asyncio.to_thread(worker, campaign.pid, *tail)

    return fault


async def kill_after_terminal(campaign: Campaign, row: RowCount) -> None:
    """SIGKILL the inquire worker the moment a client sees a response: it may not have acked yet."""
    for _ in range(campaign.trials):
        await campaign.load.next_event(lambda name, _: name == "response")
        worker(campaign.pid, "--action", "inquire").kill()
        await asyncio.sleep(0.5)
        await asyncio.to_thread(worker, campaign.pid, "--action", "inquire")


async def kill_ingest(campaign: Campaign, row: RowCount) -> None:
    for _ in range(campaign.trials):
        while not (busy := [u for u in campaign.load.uploads if u.document_id and u.ended is None]):
            await asyncio.sleep(0.05)
        killed_at = time.monotonic()
        worker(campaign.pid, "worker", "ingest").kill()
        while busy[0].ended is None:
            await asyncio.sleep(0.1)
        row.recovery_s.append(busy[0].ended - killed_at)
        await asyncio.to_thread(worker, campaign.pid, "worker", "ingest")


def kill_infrastructure(find: Callable[[Campaign], psutil.Process]) -> Fault:
    async def fault(campaign: Campaign, row: RowCount) -> None:
        async with httpx.AsyncClient(base_url=campaign.system.url, timeout=5) as client:
            for _ in range(campaign.trials):
                await asyncio.sleep(2.0)
                process = find(campaign)
                killed_at = time.monotonic()
                process.kill()
                await asyncio.sleep(0.2)
                row.recovery_s.append(await campaign.ready(client, killed_at))

    return fault


async def rolling_sigterm(campaign: Campaign, row: RowCount) -> None:
    """SIGTERM every worker in turn, each after the previous one is back, as a rolling restart does."""
    tails = [("worker", k) for k in ("embedder", "ingest", "resolver", "retrieval")]
    tails += [("--action", a) for a in ("summarize", "inquire", "compare", "audit")]
    for _ in range(campaign.trials):
        for tail in tails:
            process = worker(campaign.pid, *tail)
            stopped_at = time.monotonic()
            process.send_signal(signal.SIGTERM)
            await asyncio.to_thread(process.wait, 60)
            await asyncio.to_thread(worker, campaign.pid, *tail)
            row.recovery_s.append(time.monotonic() - stopped_at)


def launch(directory: Path, env: dict[str, str]) -> LaunchedSystem:
    directory.mkdir(parents=True, exist_ok=True)
    return launch_up(directory, env)


def user_tokens(n: int, prefix: str) -> dict[str, str]:
    from shared.auth.tokens import mint_token

    settings = Settings()
    return {
        f"{prefix}-{i}": mint_token(ENV["PP_SECRET_KEY"], tenant_id=settings.demo_tenant_id, sub=f"{prefix}-{i}")
        for i in range(n)
    }


def shared_document(system: LaunchedSystem, token: str) -> tuple[str, int]:
    """The demo policy, visible to the whole tenant; and the fault-free chunk count of the upload file."""
    with httpx.Client(base_url=system.url, headers={"Authorization": f"Bearer {token}"}, timeout=60) as client:
        ids = []
        for path, visibility in ((PDF, "tenant"), (UPLOAD, "private")):
            with path.open("rb") as fh:
                created = client.post(
                    "/v1/documents",
                    files={"file": (path.name, fh, "application/pdf")},
                    data={"title": path.stem, "visibility": visibility},
                )
            created.raise_for_status()
            ids.append(created.json()["id"])
        documents = [wait_document(client, document_id) for document_id in ids]
    return documents[0]["id"], documents[1]["chunk_count"]


def wait_document(client: httpx.Client, document_id: str) -> dict:
    while (document := client.get(f"/v1/documents/{document_id}").json())["status"] not in ("ready", "failed"):
        time.sleep(0.2)
    return document


async def with_load(
    system: LaunchedSystem, users: int, prefix: str, body: Callable[[Load], Awaitable[None]]
) -> tuple[Load, int]:
    """Run `body` while `users` users load the system; the load and the upload file's chunk count."""
    tokens = user_tokens(users, prefix)
    document_id, chunks = await asyncio.to_thread(shared_document, system, next(iter(tokens.values())))
    load = Load(url=system.url, tokens=tokens, document_id=document_id, upload_pdf=UPLOAD)
    running = asyncio.create_task(load.run())
    try:
        await body(load)
    finally:
        load.stop.set()
        await running
    return load, chunks


async def postgres_outage(seconds: float, users: int, work: Path) -> dict:
    """An external Postgres (ours to kill) down for `seconds` under load: the answers while it is down,
    and what became of the turns in flight."""
    base = Settings(nats_url="nats://127.0.0.1:1", database_url=None, database_admin_url=None)
    database = await asyncio.to_thread(start_platform, base, work / f"outage-{seconds:g}")
    env = {**ENV, **{k: v for k, v in database.env().items() if k != "PP_NATS_URL"}}
    system = await asyncio.to_thread(launch, work / f"outage-up-{seconds:g}", env)
    answers: list[tuple[float, int]] = []
    outcome: dict = {}
    postgres = database._postgres
    if postgres is None:
        raise RuntimeError("start_platform started no Postgres of its own")

    async def body(load: Load) -> None:
        await asyncio.sleep(5)
        first = len(load.turns)
        postgres.kill()
        async with httpx.AsyncClient(base_url=system.url, timeout=30, headers=load_headers(load)) as client:
            down_until = time.monotonic() + seconds
            while time.monotonic() < down_until:
                started = time.monotonic()
                status = (await client.get("/v1/documents")).status_code
                answers.append((time.monotonic() - started, status))
                await asyncio.sleep(0.1)
            await asyncio.to_thread(postgres.restart)
            back_at = time.monotonic()
            outcome["service_back_s"] = round(await Campaign(system, load, 0).ready(client, back_at), 2)
        await settle(load, len(load.turns), len(load.uploads))
        outcome["turns_in_outage"] = load.turns[first:]

    try:
        load, _ = await with_load(system, users, f"outage{seconds:g}", body)
        bus = await events_by_run(platform_nats_url(system.data_dir))
    finally:
        await asyncio.to_thread(system.stop)
        await asyncio.to_thread(database.stop)
    row = count_row(RowCount(f"postgres down {seconds:g} s (external)", 1), outcome["turns_in_outage"], [], bus, None)
    row.recovery_s.append(outcome["service_back_s"])
    slowest = max(t for t, _ in answers)
    row.notes.append(
        f"{len(answers)} requests while down: slowest {slowest * 1000:.0f} ms, statuses "
        f"{sorted({s for _, s in answers})}; service back {outcome['service_back_s']} s after Postgres"
    )
    return {**row.as_dict(), "answer_max_ms": round(slowest * 1000), "turns_in_window": len(load.turns)}


def load_headers(load: Load) -> dict[str, str]:
    return {"Authorization": f"Bearer {next(iter(load.tokens.values()))}"}


async def soak(system: LaunchedSystem, users: int, minutes: float) -> dict:
    """Many users for a while: latency, 5xx, terminal exactly once, memory growth of the whole stack."""
    rss: list[float] = []

    async def body(load: Load) -> None:
        await asyncio.sleep(min(30.0, minutes * 60 / 4))  # warm-up: caches and pools fill first
        rss.append(tree_rss_mb(system.process.pid))
        await asyncio.sleep(minutes * 60)
        rss.append(tree_rss_mb(system.process.pid))

    load, _ = await with_load(system, users, "soak", body)
    await settle(load, len(load.turns), len(load.uploads))
    bus = await events_by_run(platform_nats_url(system.data_dir))
    row = count_row(RowCount(f"{users} users for {minutes:g} min", 1), load.turns, load.uploads, bus, None)
    durations = [t.ended - t.started for t in load.turns if t.terminal == "response" and t.ended]
    return {
        **row.as_dict(),
        "turn_latency": summary(durations),
        "rss_mb_start": round(rss[0]),
        "rss_mb_end": round(rss[1]),
        "rss_growth_pct": round(100 * (rss[1] - rss[0]) / rss[0], 1),
    }


ROWS: dict[str, Fault] = {
    "kill-resolver": kill_mid_stage(("worker", "resolver")),
    "kill-inquire": kill_mid_stage(("--action", "inquire")),
    "kill-inquire-after-terminal": kill_after_terminal,
    "kill-ingest": kill_ingest,
    "kill-nats": kill_infrastructure(lambda c: nats_server(c.pid)),
    "kill-postgres": kill_infrastructure(lambda c: postmaster(c.system.data_dir)),
    "rolling-sigterm": rolling_sigterm,
}


async def steady_rows(names: list[str], trials: int, users: int, work: Path) -> list[dict]:
    system = await asyncio.to_thread(launch, work / "steady", ENV)
    campaign: Campaign | None = None

    async def body(load: Load) -> None:
        nonlocal campaign
        campaign = Campaign(system, load, trials)
        for name in names:
            await campaign.run_row(RowCount(name, trials if name != "rolling-sigterm" else 1), ROWS[name])

    try:
        load, chunks = await with_load(system, users, "steady", body)
        bus = await events_by_run(platform_nats_url(system.data_dir))
    finally:
        await asyncio.to_thread(system.stop)
    return [
        count_row(row, load.turns[t0:t1], load.uploads[u0:u1], bus, chunks).as_dict()
        for row, t0, t1, u0, u1 in started(campaign).rows
    ]


def print_table(results: list[dict]) -> None:
    head = (
        "fault",
        "trials",
        "turns",
        "completed",
        "errored",
        "lost",
        "duplicated",
        "5xx",
        "uploads",
        "up lost",
        "up dup",
        "recovery p50/p99/max s",
    )
    print(" | ".join(head))
    for r in results:
        recovery = "/".join(str(r[k]) for k in ("recovery_p50_s", "recovery_p99_s", "recovery_max_s"))
        cells = (
            r["fault"],
            r["trials"],
            r["turns"],
            r["completed"],
            r["errored"],
            r["lost"],
            r["duplicated"],
            r["5xx"],
            r["uploads"],
            r["uploads_lost"],
            r["uploads_duplicated"],
            recovery,
        )
        print(" | ".join(map(str, cells)))
        for note in r["notes"][:5]:
            print(f"    {note}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="policypal bench faults", description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated, of {', '.join(ROWS)}")
    parser.add_argument("--trials", type=int, default=25)
    parser.add_argument("--users", type=int, default=6, help="steady load during the kill rows")
    parser.add_argument("--outages", default="10,120", help="seconds of external Postgres outage, '' for none")
    parser.add_argument("--soak-users", type=int, default=50)
    parser.add_argument("--soak-minutes", type=float, default=10.0, help="0 skips the soak")
    parser.add_argument("--quick", action="store_true", help="3 trials, a 10 s outage, a 1-minute soak")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "faults.json")
    args = parser.parse_args(argv)
    if args.quick:
        args.trials, args.outages, args.soak_minutes, args.soak_users = 3, "10", 1.0, 20
    work = Path(tempfile.mkdtemp(prefix="pp-bench-faults-"))
    names = [n for n in args.rows.split(",") if n]
    results = asyncio.run(steady_rows(names, args.trials, args.users, work)) if names else []
    for seconds in [float(s) for s in args.outages.split(",") if s]:
        results.append(asyncio.run(postgres_outage(seconds, args.users, work)))
    if args.soak_minutes > 0:
        system = launch(work / "soak", ENV)
        try:
            results.append(asyncio.run(soak(system, args.soak_users, args.soak_minutes)))
        finally:
            system.stop()
    print(f"machine: {machine.platform()}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    print_table(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": machine.platform(), "cpus": os.cpu_count(), "rows": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
