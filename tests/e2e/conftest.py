"""The whole system as users run it: `policypal up` in a subprocess, driven over HTTP and SSE."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from shared.runtime.embedded import free_port

pytestmark = pytest.mark.e2e


@dataclass
class System:
    url: str
    token: str
    process: subprocess.Popen
    data_dir: Path
    env: dict[str, str]

    def client(self, token: str | None = None, **kwargs) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token or self.token}"}
        return httpx.Client(base_url=self.url, headers=headers, timeout=httpx.Timeout(120.0), **kwargs)

    def mint(self, *args: str) -> str:
        out = subprocess.run(
            [sys.executable, "-m", "policypal.cli", "token", *args],
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()


@pytest.fixture(scope="session")
def system(tmp_path_factory: pytest.TempPathFactory) -> Iterator[System]:
    data_dir = tmp_path_factory.mktemp("up")
    port = free_port()
    env = {
        **os.environ,
        "PP_DATA_DIR": str(data_dir),
        "PP_PORT": str(port),
        "PP_NATS_PORT": str(free_port()),
        "PP_ACK_WAIT_S": "6",
        "PP_RPC_TIMEOUT_S": "30",
        "PP_SECRET_KEY": "e2e-secret-0123456789abcdef0123456789",
    }
    for key in ("PP_NATS_URL", "PP_DATABASE_URL", "PP_DATABASE_ADMIN_URL"):
        env.pop(key, None)
    log = open(data_dir / "up.out", "w+")  # noqa: SIM115 - closed in teardown
    process = subprocess.Popen(
        [sys.executable, "-m", "policypal.cli", "up"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    token = None
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and process.poll() is None:
        log.seek(0)
        match = re.search(r"export PP_TOKEN=(\S+)", log.read())
        if match:
            token = match.group(1)
            break
        time.sleep(0.5)
    if token is None:
        log.seek(0)
        process.kill()
        pytest.fail(f"policypal up did not come up:\n{log.read()[-4000:]}")
    yield System(url=f"http://127.0.0.1:{port}", token=token, process=process, data_dir=data_dir, env=env)
    process.send_signal(signal.SIGINT)
    try:
        process.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
    log.close()
