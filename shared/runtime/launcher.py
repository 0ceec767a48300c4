"""Starting `policypal up` as a child process and waiting for it — for e2e tests and benchmarks."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from shared.runtime.embedded import free_ports

TOKEN_LINE = re.compile(r"export PP_TOKEN=(\S+)")
UP_LINE = re.compile(r"PolicyPal is up in ([\d.]+)s")


@dataclass
class LaunchedSystem:
    url: str
    token: str
    process: subprocess.Popen
    data_dir: Path
    env: dict[str, str]
    ready_s: float
    _log: IO[str]

    def stop(self, timeout_s: float = 60.0) -> None:
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
        self._log.close()


def launch_up(
    data_dir: Path,
    extra_env: dict[str, str] | None = None,
    timeout_s: float = 180.0,
    cwd: Path | None = None,
    args: list[str] | None = None,
) -> LaunchedSystem:
    """Run `policypal up` on free ports in `data_dir`; returns once it printed its token.

    `cwd` (with PYTHONPATH in `extra_env`) runs another checkout's code: benchmarks compare commits.
    No first-run sample document (policypal/sample.py) unless `extra_env` asks for one: tests and
    benchmarks measure and assert on the libraries they build themselves."""
    port, nats_port = free_ports(2)
    env = {
        **os.environ,
        "PP_SAMPLE_DOCUMENT": "",
        "PP_DATA_DIR": str(data_dir),
        "PP_PORT": str(port),
        "PP_NATS_PORT": str(nats_port),
    }
    for key in ("PP_NATS_URL", "PP_DATABASE_URL", "PP_DATABASE_ADMIN_URL"):
        env.pop(key, None)
    env.update(extra_env or {})
    log = open(data_dir / "up.out", "w+")  # noqa: SIM115 - closed by stop()
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "policypal.cli", "up", *(args or [])],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        cwd=cwd,
    )
    deadline = started + timeout_s
    while time.monotonic() < deadline and process.poll() is None:
        log.seek(0)
        match = TOKEN_LINE.search(log.read())
        if match:
            return LaunchedSystem(
                url=f"http://127.0.0.1:{port}",
                token=match.group(1),
                process=process,
                data_dir=data_dir,
                env=env,
                ready_s=time.monotonic() - started,
                _log=log,
            )
        time.sleep(0.2)
    log.seek(0)
    output = log.read()[-4000:]
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    log.close()
    raise RuntimeError(f"policypal up did not come up:\n{output}")
