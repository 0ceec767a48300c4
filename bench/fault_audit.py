"""Counting what a fault did, from the sources of truth: the events stream and the processes.

A turn is *completed* when exactly one terminal event for its run is on the bus, *lost* when none
is, *duplicated* when more than one is or when any of its events was stored twice under the same
`Nats-Msg-Id` (a replayed stage republished it outside JetStream's de-duplication window). The
client's own view is kept beside it.
"""

from __future__ import annotations

import json
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import nats
import psutil
from nats.js.api import DeliverPolicy

from bench.fault_load import TERMINAL, Turn, Upload
from bench.harness import percentile


@dataclass
class RunEvents:
    terminals: Counter = field(default_factory=Counter)
    message_ids: Counter = field(default_factory=Counter)

    @property
    def terminal_count(self) -> int:
        return sum(self.terminals.values())

    @property
    def republished(self) -> bool:
        return any(n > 1 for n in self.message_ids.values())


async def events_by_run(nats_url: str, prefix: str = "pp", idle_s: float = 2.0) -> dict[str, RunEvents]:
    """Every event ever published on `<prefix>.evt.thread.>`, grouped by run."""
    nc = await nats.connect(nats_url)
    runs: dict[str, RunEvents] = defaultdict(RunEvents)
    try:
        sub = await nc.jetstream().subscribe(
            f"{prefix}.evt.thread.>", ordered_consumer=True, deliver_policy=DeliverPolicy.ALL
        )
        while True:
            try:
                msg = await sub.next_msg(timeout=idle_s)
            except nats.errors.TimeoutError:
                break
            event = json.loads(msg.data)
            run = runs[str(event.get("run_id"))]
            if event.get("type") in TERMINAL:
                run.terminals[event["type"]] += 1
            if message_id := (msg.headers or {}).get("Nats-Msg-Id"):
                run.message_ids[message_id] += 1
        await sub.unsubscribe()
    finally:
        await nc.close()
    return runs


@dataclass
class RowCount:
    """One row of the campaign's table."""

    fault: str
    trials: int
    turns: int = 0
    completed: int = 0
    errored: int = 0
    lost: int = 0
    duplicated: int = 0
    refused_5xx: int = 0
    uploads: int = 0
    uploads_lost: int = 0
    uploads_duplicated: int = 0
    recovery_s: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        recovery = sorted(self.recovery_s)
        return {
            "fault": self.fault,
            "trials": self.trials,
            "turns": self.turns,
            "completed": self.completed,
            "errored": self.errored,
            "lost": self.lost,
            "duplicated": self.duplicated,
            "5xx": self.refused_5xx,
            "uploads": self.uploads,
            "uploads_lost": self.uploads_lost,
            "uploads_duplicated": self.uploads_duplicated,
            "recovery_p50_s": round(percentile(recovery, 50), 2) if recovery else None,
            "recovery_p99_s": round(percentile(recovery, 99), 2) if recovery else None,
            "recovery_max_s": round(recovery[-1], 2) if recovery else None,
            "notes": self.notes,
        }


def count_row(
    row: RowCount,
    turns: list[Turn],
    uploads: list[Upload],
    bus: dict[str, RunEvents],
    expected_chunks: int | None,
) -> RowCount:
    """Fill `row` from the turns and uploads the row started. `expected_chunks` is the fault-free
    chunk count of the uploaded file; more means a replayed ingest stored its chunks twice."""
    for turn in turns:
        if turn.http_status is not None and turn.http_status >= 500:
            row.refused_5xx += 1
            continue
        if turn.run_id is None:
            continue
        row.turns += 1
        events = bus.get(turn.run_id, RunEvents())
        if events.terminal_count == 0:
            row.lost += 1
        elif events.terminal_count > 1 or events.republished:
            row.duplicated += 1
        elif events.terminals["error"]:
            row.errored += 1
        else:
            row.completed += 1
    for upload in uploads:
        if upload.document_id is None:
            continue
        row.uploads += 1
        if upload.status not in ("ready", "failed"):
            row.uploads_lost += 1
        elif expected_chunks is not None and upload.chunks is not None and upload.chunks > expected_chunks:
            row.uploads_duplicated += 1
    return row


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants."""
    root = psutil.Process(pid)
    total = 0
    for process in [root, *root.children(recursive=True)]:
        try:
            total += process.memory_info().rss
        except psutil.NoSuchProcess:
            continue
    return total / 2**20


def child_process(up_pid: int, matches: Callable[[psutil.Process], bool]) -> psutil.Process:
    """The live child of `up` for which `matches(process)` holds, waiting while the supervisor restarts it."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for process in psutil.Process(up_pid).children():
            try:
                if process.status() != psutil.STATUS_ZOMBIE and matches(process):
                    return process
            except psutil.NoSuchProcess:
                continue
        time.sleep(0.1)
    raise RuntimeError(f"no running child of {up_pid} matches")


def worker(up_pid: int, *argv_tail: str) -> psutil.Process:
    """A worker by the end of its command line, e.g. ("worker", "resolver") or ("--action", "inquire")."""
    return child_process(up_pid, lambda p: tuple(p.cmdline()[-len(argv_tail) :]) == argv_tail)


def nats_server(up_pid: int) -> psutil.Process:
    return child_process(up_pid, lambda p: p.name() == "nats-server")


def postmaster(data_dir: Path) -> psutil.Process:
    return psutil.Process(int((data_dir / "pg" / "postmaster.pid").read_text().split()[0]))
