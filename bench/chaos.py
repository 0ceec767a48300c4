"""Chaos run: NATS nodes killed under load, every turn and upload accounted for.

Starts `policypal up --nats-cluster 3` in a fresh directory, ingests the README's demo policy,
then runs users sending inquire turns and an uploader while, each round, two followers of the
commands stream and then its leader are killed with SIGKILL and restarted (bench/chaos_load.py).
Prints one row per kill (victim, role, seconds without turn progress / without accepted
uploads) and the totals (turns, uploads, lost, duplicated), and writes bench/results/chaos.json.

    python -m bench.chaos [--rounds 3] [--users 4] [--down 8] [--settle 15]
    python -m bench.chaos --compose [...]   docker-compose.yml instead (bench/compose_faults.py):
        kills a NATS follower, the stream leader's node, an action worker replica and Postgres

The CI version is tests/e2e/test_cluster_faults.py (one round, shorter pauses).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

import httpx

from bench.chaos_load import Audit, Kill, chaos
from bench.harness import upload_and_wait
from shared.runtime.launcher import launch_up

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "chaos.json"
PDF = ROOT / "examples" / "data-retention-policy.pdf"
ENV = {
    # Longer than a stage can block on a publish during a leader election: a shorter wait
    # redelivers a command while its first delivery still runs (docs/operating.md, the NATS kills).
    "PP_ACK_WAIT_S": "30",
    "PP_SECRET_KEY": "chaos-secret-0123456789abcdef0123456789",
    "PP_RATE_LIMIT_USER_PER_MIN": "100000",
    "PP_RATE_LIMIT_TENANT_PER_MIN": "100000",
}


def table(kills: list[Kill], audit: Audit) -> str:
    rows = ["| # | killed | role | s without turns | s without uploads |", "|---|---|---|---|---|"]
    rows += [
        f"| {i} | {k.victim} | {k.role} | {k.outage_s:.1f} | {k.upload_outage_s:.1f} |" for i, k in enumerate(kills, 1)
    ]
    rows += [
        "",
        "| kills | turns | lost | duplicated | uploads | lost | duplicate chunks | 503/refused |",
        "|---|---|---|---|---|---|---|---|",
        f"| {len(kills)} | {audit.turns} | {audit.lost_turns} | {audit.duplicated_turns} | {audit.uploads} "
        f"| {audit.lost_uploads} | {audit.duplicated_chunks} | {audit.refused} |",
    ]
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="policypal bench chaos", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of (follower, follower, leader) kills")
    parser.add_argument("--users", type=int, default=4, help="concurrent users sending inquire turns")
    parser.add_argument("--down", type=float, default=8.0, help="seconds a killed node stays down")
    parser.add_argument("--settle", type=float, default=15.0, help="seconds of load between kills")
    parser.add_argument("--keep", type=Path, help="run in this (new) directory and keep it: logs of every process")
    parser.add_argument("--compose", action="store_true", help="kill containers of docker-compose.yml instead")
    args = parser.parse_args(argv)
    started = time.monotonic()
    if args.compose:
        from bench.compose_faults import run_compose_chaos

        kills, audit = run_compose_chaos(PDF, users=args.users, rounds=args.rounds, down_s=args.down,
                                         settle_s=args.settle)  # fmt: skip
        return report(args, kills, audit, started, RESULTS.with_name("chaos-compose.json"))
    with tempfile.TemporaryDirectory(prefix="pp-chaos-") as tmp:
        data_dir = args.keep or Path(tmp)
        data_dir.mkdir(parents=True, exist_ok=True)
        system = launch_up(data_dir, ENV, timeout_s=300.0, args=["--nats-cluster", "3"])
        try:
            headers = {"Authorization": f"Bearer {system.token}"}
            with httpx.Client(base_url=system.url, headers=headers, timeout=120.0) as client:
                doc_id = upload_and_wait(client, PDF, "Northwind Retention Policy", "company_policy")
            body = {
                "message": "How long are job applicant records kept?",
                "action": "inquire",
                "tagged_doc_ids": [doc_id],
            }
            kills, audit, _ = chaos(
                system.url, system.token, system.data_dir, body, PDF,
                users=args.users, rounds=args.rounds, down_s=args.down, settle_s=args.settle,
            )  # fmt: skip
        finally:
            system.stop()
    return report(args, kills, audit, started, RESULTS)


def report(args: argparse.Namespace, kills: list[Kill], audit: Audit, started: float, results: Path) -> int:
    print(table(kills, audit))
    for problem in audit.problems[:20]:
        print("  problem:", problem)
    results.parent.mkdir(parents=True, exist_ok=True)
    result = {
        "parameters": {k: v for k, v in vars(args).items() if k != "keep"},
        "wall_s": round(time.monotonic() - started, 1),
        "kills": [{k: v for k, v in asdict(kill).items() if k != "at"} for kill in kills],
        "audit": asdict(audit),
    }
    results.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {results}")
    clean = not audit.problems and not audit.duplicated_chunks and not audit.duplicated_usage
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
