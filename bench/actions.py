"""Per-action latency with the offline engine on the example corpus (through HTTP/SSE and the bus).

    python bench/actions.py [--turns 15]

Starts `policypal up`, uploads the two example PDFs, then runs each action `--turns` times on a
fresh thread: inquire (tagged), summarize (one document), compare (focused, and holistic, both
documents), audit (text mode). Prints p50/p95/p99 to the terminal event and writes bench/results/actions.json.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import httpx

from bench.harness import summary, timed_turn, upload_and_wait
from shared.runtime.launcher import launch_up

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=15)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "actions.json")
    args = parser.parse_args(argv)
    system = launch_up(Path(tempfile.mkdtemp(prefix="pp-bench-actions-")), {"PP_RATE_LIMIT_USER_PER_MIN": "100000"})
    try:
        client = httpx.Client(base_url=system.url, headers={"Authorization": f"Bearer {system.token}"}, timeout=120)
        examples = ROOT / "examples"
        policy = upload_and_wait(client, examples / "data-retention-policy.pdf", "Retention Policy", "company_policy")
        regulation = upload_and_wait(client, examples / "storage-limitation-regulation.pdf", "Regulation")
        requests = {
            "inquire": {
                "message": "How quickly must a breach be notified?",
                "action": "inquire",
                "tagged_doc_ids": [policy],
            },
            "summarize": {"message": "Summarize this", "action": "summarize", "tagged_doc_ids": [policy]},
            "compare": {
                "message": "Compare breach notification",
                "action": "compare",
                "tagged_doc_ids": [policy, regulation],
            },
            "compare_holistic": {
                "message": "Compare these",
                "action": "compare",
                "tagged_doc_ids": [policy, regulation],
            },
            "audit": {
                "message": "Audit against this: Breaches must be notified within 24 hours. "
                "Applicant data must be deleted within six months.",
                "action": "audit",
                "tagged_doc_ids": [policy],
            },
        }
        results = {}
        for action, body in requests.items():
            timed_turn(client, body)  # warm-up: first use of each worker
            totals, firsts = [], []
            for _ in range(args.turns):
                first, total, end = timed_turn(client, body)
                assert end["event"] == "response", end
                firsts.append(first)
                totals.append(total)
            results[action] = {"first_event": summary(firsts), "response": summary(totals)}
    finally:
        system.stop()
    print(f"{'action':<17}{'first p50':>10}{'resp p50':>10}{'resp p95':>10}{'resp p99':>10}  (ms)")
    for action, r in results.items():
        print(
            f"{action:<17}{r['first_event']['p50_ms']:>10}{r['response']['p50_ms']:>10}"
            f"{r['response']['p95_ms']:>10}{r['response']['p99_ms']:>10}"
        )
    base = results["inquire"]["response"]["p50_ms"]
    print(
        "response p50 relative to inquire: "
        + ", ".join(f"{a} {r['response']['p50_ms'] / base:.2f}x" for a, r in results.items())
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
