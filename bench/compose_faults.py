"""Faults on containers: `policypal bench chaos --compose`.

The chaos load of bench/chaos_load.py (users sending inquire turns, an uploader, then the
ledger checked against the system's records) against docker-compose.yml as shipped. Each round
kills with SIGKILL, restarts after `down` seconds and waits for healthy: a NATS node following
the commands stream, the stream's leader node, one replica of the inquire action worker, and
Postgres. The table is the embedded run's (bench/chaos.py).
"""

from __future__ import annotations

import re
import subprocess
import time
import uuid
from pathlib import Path

import httpx

from bench.chaos_load import Audit, chaos, stream_leader_in
from bench.compose_stack import ComposeStack, unavailable, wait_ready
from bench.harness import upload_and_wait

NATS_NODES = ("nats-1", "nats-2", "nats-3")
ROLES = ("nats follower", "stream leader", "action worker replica", "postgres")
# Ids go into a psql array literal: only what uuids and thread ids are made of.
SAFE_ID = re.compile(r"^[A-Za-z0-9_-]+$")
COUNTS_SQL = """
SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) n FROM chunks WHERE document_id = ANY(:'docs'::uuid[])
  GROUP BY document_id, ordinal) c;
SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) n FROM usage WHERE thread_id = ANY(:'threads')
  AND request_hash IS NOT NULL GROUP BY run_id, task, request_hash) u;
"""


def id_array(ids: list[str]) -> str:
    for value in ids:
        if not SAFE_ID.match(value):
            raise ValueError(f"unexpected id {value!r}")
    return "{" + ",".join(ids) + "}"


class ComposeFaults:
    """Kills and restarts containers of one compose project; the same surface as chaos_load.Faults."""

    def __init__(self, stack: ComposeStack) -> None:
        self.stack = stack
        self.nodes = {name: stack.containers(name)[0] for name in NATS_NODES}

    def stream_leader(self, stream: str) -> str:
        """The node leading `stream`, asked of any node that answers."""
        for node in NATS_NODES:
            try:
                info = self.stack.monitor(node, "/jsz?streams=true")
            except (RuntimeError, ValueError):
                continue
            leader = stream_leader_in(info, stream)
            if leader:
                return leader
        raise RuntimeError(f"no leader found for {stream}")

    def pick(self, role: str, stream: str, spared: set[str]) -> str:
        """The container to kill for `role`, chosen at the moment of the kill."""
        if role == "postgres":
            return self.stack.containers("postgres")[0]
        if role == "action worker replica":
            return self.stack.containers("action-inquire")[0]
        leader = self.stream_leader(stream)
        if role == "stream leader":
            return self.nodes[leader]
        followers = [self.nodes[name] for name in NATS_NODES if name != leader]
        return next((c for c in followers if c not in spared), followers[0])

    def kill(self, container: str) -> float:
        subprocess.run(["docker", "kill", "--signal", "KILL", container], capture_output=True, check=True)
        return time.monotonic()

    def restart(self, container: str, timeout_s: float = 180.0) -> None:
        """Start it again (its restart policy may have already) and wait for its healthcheck."""
        subprocess.run(["docker", "start", container], capture_output=True, check=True)
        deadline = time.monotonic() + timeout_s
        while True:
            status = subprocess.run(
                ["docker", "inspect", "-f", "{{.State.Health.Status}}", container], capture_output=True, text=True
            ).stdout.strip()
            if status == "healthy":
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{container} not healthy within {timeout_s:.0f}s (last: {status})")
            time.sleep(1.0)

    def cleanup(self) -> None:
        """Nothing of its own: the stack's `down` removes every container."""

    def counts(self, doc_ids: list[str], thread_ids: list[str]) -> tuple[int, int]:
        """(chunks stored twice, usage rows written twice), read with psql as the owner inside
        the Postgres container (the compose file publishes no database port)."""
        docs = id_array([str(uuid.UUID(d)) for d in doc_ids])
        out = self.stack.compose(
            "exec", "-T", "postgres", "psql", "-U", "postgres", "-d", "policypal", "-At", "-v", "ON_ERROR_STOP=1",
            "-v", f"docs={docs}", "-v", f"threads={id_array(thread_ids)}",
            stdin=COUNTS_SQL,
        ).stdout.split()  # fmt: skip
        return int(out[0]), int(out[1])


def run_compose_chaos(pdf: Path, *, users: int, rounds: int, down_s: float, settle_s: float) -> tuple[list, Audit]:
    """Bring a fresh compose project up, ingest the demo policy, run the chaos load, tear down."""
    reason = unavailable()
    if reason:
        raise RuntimeError(f"cannot run the compose stack here: {reason}")
    stack = ComposeStack(project=f"pp-chaos-{uuid.uuid4().hex[:8]}")
    try:
        stack.up()
        token = stack.seed_and_token()
        wait_ready(stack.url)
        with httpx.Client(base_url=stack.url, headers={"Authorization": f"Bearer {token}"}, timeout=120.0) as client:
            doc_id = upload_and_wait(client, pdf, "Northwind Retention Policy", "company_policy")
        body = {"message": "How long are job applicant records kept?", "action": "inquire", "tagged_doc_ids": [doc_id]}
        kills, audit, _ = chaos(
            stack.url, token, Path(), body, pdf,
            users=users, rounds=rounds, down_s=down_s, settle_s=settle_s,
            faults=ComposeFaults(stack), roles=ROLES,
        )  # fmt: skip
        return kills, audit
    finally:
        stack.down()
