"""Sign-in on the wire: how long failures take for known and unknown addresses (they must not
tell one from the other), and the throttle's schedule (after how many failures, what delay).

`policypal bench signin [--tries N]` (or `python -m bench.signin`) launches `policypal up` twice:
once with the throttle out of the way to time answers side by side, once with the default
throttle to record, failure by failure, the status and the `Retry-After` the gateway answers.
Results go to bench/results/signin.json.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import uuid
from pathlib import Path

import httpx

from bench.harness import summary
from shared.runtime.launcher import launch_up

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "bench password 0123"


def timed_sign_in(client: httpx.Client, email: str, password: str) -> float:
    started = time.perf_counter()
    client.post("/v1/auth/signin", json={"email": email, "password": password})
    return time.perf_counter() - started


def answer_times(tries: int) -> dict:
    """Interleaved so machine noise hits every kind alike."""
    system = launch_up(Path(tempfile.mkdtemp(prefix="pp-bench-signin-")), {"PP_SIGNIN_FREE_FAILURES": "1000000"})
    try:
        with httpx.Client(base_url=system.url, timeout=60) as client:
            email = f"bench-{uuid.uuid4().hex[:8]}@example.com"
            client.post("/v1/auth/signup", json={"email": email, "password": PASSWORD}).raise_for_status()
            kinds: dict[str, list[float]] = {"wrong_password": [], "unknown_email": [], "success": []}
            for _ in range(tries):
                for kind, (address, password) in {
                    "wrong_password": (email, "not the password"),
                    "unknown_email": (f"nobody-{uuid.uuid4().hex[:8]}@example.com", "not the password"),
                    "success": (email, PASSWORD),
                }.items():
                    kinds[kind].append(timed_sign_in(client, address, password))
        stats = {kind: summary(values) for kind, values in kinds.items()}
        ratio = stats["unknown_email"]["p50_ms"] / stats["wrong_password"]["p50_ms"]
        return {**stats, "unknown_over_wrong_p50": round(ratio, 3)}
    finally:
        system.stop()


def throttle_schedule(failures: int) -> list[dict]:
    """Failure after failure; a 429 is waited out (its Retry-After) as a patient attacker would,
    and recorded as the wait that followed the previous failure."""
    system = launch_up(Path(tempfile.mkdtemp(prefix="pp-bench-throttle-")))
    try:
        rows: list[dict] = []
        with httpx.Client(base_url=system.url, timeout=60) as client:
            email = f"bench-{uuid.uuid4().hex[:8]}@example.com"
            while len(rows) < failures:
                started = time.perf_counter()
                answer = client.post("/v1/auth/signin", json={"email": email, "password": "not the password"})
                if answer.status_code == 429:
                    rows[-1]["then_wait_s"] += int(answer.headers["retry-after"])
                    time.sleep(int(answer.headers["retry-after"]))
                    continue
                ms = round((time.perf_counter() - started) * 1000, 1)
                rows.append({"failure": len(rows) + 1, "status": answer.status_code, "answer_ms": ms, "then_wait_s": 0})
        return rows
    finally:
        system.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="policypal bench signin")
    parser.add_argument("--tries", type=int, default=30)
    parser.add_argument("--failures", type=int, default=8)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "signin.json")
    args = parser.parse_args(argv)
    result = {"answers": answer_times(args.tries), "throttle": throttle_schedule(args.failures)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
