"""Schemathesis against the running gateway: generated requests for every operation of the OpenAPI.

No input may produce a 5xx, and every response must have a documented status, content type and schema. SSE
operations run for real (workers are up), so a valid generated chat gets its terminal event.
Runs the schemathesis CLI, the way an external team would point it at a deployment, with a fixed
seed so CI is reproducible (drop `--seed` locally to explore further).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e


def test_no_server_errors_and_schema_conformance(system, tmp_path):
    token = system.mint("--user", "fuzzer", "--ttl", "3600")
    schemathesis = Path(sys.executable).parent / "schemathesis"
    result = subprocess.run(
        [
            str(schemathesis),
            "run",
            f"{system.url}/openapi.json",
            "--checks",
            "not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance",
            "-H",
            f"Authorization: Bearer {token}",
            "--max-examples",
            "20",
            "--request-timeout",
            "120",
            "--workers",
            "1",
            "--seed",
            "20261122",
            "--suppress-health-check",
            "all",
        ],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
