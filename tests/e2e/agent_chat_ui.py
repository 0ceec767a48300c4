"""LangChain's Agent Chat UI (clients/agent-chat-ui) built and served for the browser tests.

The build is made once per content of the vendored client by scripts/agent-chat-ui.sh (under
`build/agent-chat-ui/<hash>`); `next start` serves it here in its environment-configured proxy
mode, the recipe of docs/langgraph-clients.md: the browser talks to the UI's own `/api`, which
forwards to `/lg` with the PolicyPal token as `X-Api-Key` (LANGSMITH_API_KEY), so the token never
reaches the browser and no CORS is needed.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD_TIMEOUT_S = 1800


def built() -> Path:
    """The build's folder, building it first when this content of the client has none."""
    if not shutil.which("npm") or not shutil.which("node"):
        pytest.fail("Node.js and npm are required for the Agent Chat UI test (apt-get install nodejs npm)")
    done = subprocess.run(
        [str(ROOT / "scripts" / "agent-chat-ui.sh")], capture_output=True, text=True, timeout=BUILD_TIMEOUT_S
    )
    if done.returncode != 0:
        pytest.fail(f"Agent Chat UI build failed:\n{done.stderr[-4000:]}")
    return ROOT / done.stdout.strip().splitlines()[-1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def served(lg_url: str, token: str) -> Iterator[str]:
    """`next start` of the build, forwarding its `/api` to `lg_url` with `token`; yields its URL."""
    folder, port = built(), free_port()
    env = {
        **os.environ,
        "LANGGRAPH_API_URL": lg_url,
        "LANGSMITH_API_KEY": token,
        "NEXT_TELEMETRY_DISABLED": "1",
    }
    next_bin = folder / "node_modules" / ".bin" / "next"
    process = subprocess.Popen(
        [str(next_bin), "start", "-H", "127.0.0.1", "-p", str(port)],
        cwd=folder,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url, timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"next start did not come up: {process.stderr.read().decode()[-2000:]}")
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
