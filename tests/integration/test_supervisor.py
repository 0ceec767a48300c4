"""`policypal up`'s supervisor restarts a child whose health port another process took on a fresh
port (shared/runtime/supervisor.py): the child no longer crash-loops on "address already in use",
and `health.json` says where it now listens."""

from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path

import pytest

from shared.runtime.supervisor import Child, Supervisor

pytestmark = pytest.mark.integration

# A worker in miniature: it listens on its health port, as shared/health does, or exits at once.
LISTENER = (
    "import os, socket, time\n"
    "s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
    "s.bind(('127.0.0.1', int(os.environ['PP_HEALTH_PORT']))); s.listen(); time.sleep(60)\n"
)


def test_a_child_whose_port_is_taken_restarts_on_a_fresh_one(tmp_path: Path):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        taken = squatter.getsockname()[1]
        child = Child("worker", [sys.executable, "-c", LISTENER], health_port=taken)
        supervisor = Supervisor([child], {}, tmp_path / "logs", tmp_path / "health.json")
        supervisor.start_all()
        try:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not (child.restarts and child.process.poll() is None):
                supervisor.poll()
                time.sleep(0.1)
            time.sleep(1.0)  # the restarted child has bound its port by now, or exited again
            assert child.process.poll() is None, (tmp_path / "logs" / "worker.log").read_text()
            assert child.health_port != taken
            assert json.loads((tmp_path / "health.json").read_text()) == {"worker": child.health_port}
        finally:
            supervisor.stop_all(grace_s=2)
