"""`up` owns the embedded NATS and Postgres: killed with SIGKILL, each is restarted with its data,
the system answers again without anyone touching it, and `up`'s Ctrl-C stops the new servers too.

A system of its own: killing the session's shared servers would disturb every other e2e test.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import psutil
import pytest

from shared.runtime.launcher import LaunchedSystem, launch_up
from tests.e2e.helpers import ask, terminal


@pytest.fixture(scope="module")
def launched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LaunchedSystem]:
    system = launch_up(
        tmp_path_factory.mktemp("supervised"),
        {"PP_ACK_WAIT_S": "6", "PP_SECRET_KEY": "supervised-secret-0123456789abcdef0123"},
    )
    yield system
    system.stop()


def nats_server(system: LaunchedSystem) -> psutil.Process:
    (found,) = [p for p in psutil.Process(system.process.pid).children() if p.name() == "nats-server"]
    return found


def postmaster(system: LaunchedSystem) -> psutil.Process:
    return psutil.Process(int((system.data_dir / "pg" / "postmaster.pid").read_text().split()[0]))


def wait_ready(client: httpx.Client, attempts: int = 1200) -> None:
    # Up to two minutes: Postgres's crash recovery and the supervisor's restart back-off take
    # seconds on a quiet machine and several times that on a loaded 2-core one; a hang still fails.
    for _ in range(attempts):
        try:
            if client.get("/readyz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise AssertionError("the system never became ready again")


def answered(client: httpx.Client) -> dict:
    events = ask(client, "What does the policy say about backups?")
    return terminal(events)


def test_a_killed_nats_server_and_postgres_come_back_with_their_data(launched: LaunchedSystem):
    headers = {"Authorization": f"Bearer {launched.token}"}
    with httpx.Client(base_url=launched.url, headers=headers, timeout=60) as client:
        before = answered(client)
        assert before["event"] == "response"
        history = client.get("/v1/conversations").json()["items"]

        first_nats = nats_server(launched)
        first_nats.kill()
        first_nats.wait(10)
        wait_ready(client)
        assert nats_server(launched).pid != first_nats.pid
        assert answered(client)["event"] == "response"

        first_pg = postmaster(launched)
        first_pg.kill()
        first_pg.wait(10)
        down = client.get("/v1/conversations")
        assert down.status_code in (200, 503)  # 200 when `up` already restarted it; never a hang
        wait_ready(client)
        assert postmaster(launched).pid != first_pg.pid
        assert answered(client)["event"] == "response"
        after = client.get("/v1/conversations").json()["items"]
        assert {c["thread_id"] for c in history} <= {c["thread_id"] for c in after}

    new_nats, new_pg = nats_server(launched), postmaster(launched)
    launched.stop()
    assert stopped(new_nats) and stopped(new_pg)


def stopped(process: psutil.Process) -> bool:
    """Exited (a zombie has exited; only its parent has not collected the status yet)."""
    try:
        return not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True
