"""A small process supervisor: one OS process per service, restarted when it crashes.

Logs go to `<data_dir>/logs/<name>.log`. A child that keeps crashing is restarted with
exponential backoff (reset once it has stayed up for a minute), capped at a few seconds: with one
replica per kind, a longer wait would leave an action unserved; stop sends SIGTERM so workers
drain, then SIGKILL after a grace period. A child with a `health_port` serves `/readyz` there
(shared/health); `not_ready()` lists the children that do not answer 200 yet, and `ports_file`
lists every child's port. A child is restarted on a fresh port when another process has taken its
own: it would otherwise exit on "address already in use" at every restart.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from shared.runtime.embedded import bindable, free_ports

log = logging.getLogger(__name__)

STABLE_AFTER_S = 60.0
MAX_BACKOFF_S = 4.0


@dataclass
class Child:
    name: str
    argv: list[str]
    process: subprocess.Popen | None = None
    started_at: float = 0.0
    restarts: int = 0
    next_start: float = 0.0
    backoff: float = field(default=0.5)
    health_port: int = 0

    def ready(self) -> bool:
        """Running and answering 200 on /readyz (a child without a health port: running)."""
        if self.process is None or self.process.poll() is not None:
            return False
        if not self.health_port:
            return True
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.health_port}/readyz", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False


class Supervisor:
    def __init__(
        self, children: list[Child], env: dict[str, str], log_dir: Path, ports_file: Path | None = None
    ) -> None:
        self.children = children
        self.env = env
        self.log_dir = log_dir
        self.ports_file = ports_file
        log_dir.mkdir(parents=True, exist_ok=True)

    def publish_ports(self) -> None:
        """Every child's health port, in `ports_file` (for operators and tests)."""
        if self.ports_file is not None:
            ports = {c.name: c.health_port for c in self.children if c.health_port}
            self.ports_file.write_text(json.dumps(ports))

    def _free_port_for(self, child: Child) -> None:
        """A fresh health port for a child whose own another process now holds."""
        if not child.health_port or bindable(child.health_port):
            return
        taken = {c.health_port for c in self.children}
        old, child.health_port = child.health_port, free_ports(1, avoid=taken)[0]
        log.warning("%s: port %d is taken; restarting it on %d", child.name, old, child.health_port)
        self.publish_ports()

    def _spawn(self, child: Child) -> None:
        logfile = open(self.log_dir / f"{child.name}.log", "ab")  # noqa: SIM115 - handed to the child
        env = {**self.env, "PP_HEALTH_PORT": str(child.health_port)} if child.health_port else self.env
        child.process = subprocess.Popen(
            child.argv, env=env, stdout=logfile, stderr=subprocess.STDOUT, start_new_session=True
        )
        logfile.close()
        child.started_at = time.monotonic()

    def start_all(self) -> None:
        self.publish_ports()
        for child in self.children:
            self._spawn(child)

    def not_ready(self) -> list[str]:
        return [child.name for child in self.children if not child.ready()]

    def poll(self) -> None:
        """Restart children that exited; call periodically."""
        now = time.monotonic()
        for child in self.children:
            if child.process is None or child.process.poll() is None:
                if child.process is not None and now - child.started_at > STABLE_AFTER_S:
                    child.backoff = 0.5
                continue
            if child.next_start == 0.0:
                code = child.process.returncode
                log.warning("%s exited with %s; restarting in %.1fs", child.name, code, child.backoff)
                child.next_start = now + child.backoff
                child.backoff = min(child.backoff * 2, MAX_BACKOFF_S)
            elif now >= child.next_start:
                child.next_start = 0.0
                child.restarts += 1
                self._free_port_for(child)
                self._spawn(child)

    def stop_all(self, grace_s: float = 10.0) -> None:
        for child in self.children:
            if child.process is not None and child.process.poll() is None:
                child.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        for child in self.children:
            if child.process is None:
                continue
            try:
                child.process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("%s did not stop in time; killing it", child.name)
                os.killpg(child.process.pid, signal.SIGKILL)
                child.process.wait()
