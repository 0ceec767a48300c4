"""PP_TEST_BACKEND=containers: NATS (JetStream) and Postgres + pgvector in containers started by
testcontainers-python, from the images deploy/images.sh builds (policypal-nats, policypal-postgres).

Ports are published on 127.0.0.1 only. Ryuk (testcontainers' reaper) is an image from a registry,
which this machine cannot reach, so it is off: the session fixture stops and removes both
containers itself, volumes included.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")

from testcontainers.core.container import DockerContainer  # noqa: E402
from testcontainers.core.wait_strategies import LogMessageWaitStrategy  # noqa: E402

from shared.config import Settings  # noqa: E402

NATS_IMAGE = os.environ.get("PP_TEST_NATS_IMAGE", "policypal-nats:local")
POSTGRES_IMAGE = os.environ.get("PP_TEST_POSTGRES_IMAGE", "policypal-postgres:local")


def loopback(container: DockerContainer, port: int) -> DockerContainer:
    """Publish `port` on a free port of 127.0.0.1 (docker-py's (address, None) binding)."""
    container.ports[f"{port}/tcp"] = ("127.0.0.1", None)
    return container


@contextmanager
def infrastructure() -> Iterator[Settings]:
    """Start both containers; yields the settings that point the platform at them (app role
    pp_app with its own password, the owner URL for migrations)."""
    owner_password, app_password = secrets.token_hex(16), secrets.token_hex(16)
    nats = loopback(DockerContainer(NATS_IMAGE), 4222).with_command(
        ["nats-server", "--jetstream", "--store_dir", "/data"]
    )
    nats.waiting_for(LogMessageWaitStrategy("Server is ready"))
    postgres = loopback(DockerContainer(POSTGRES_IMAGE), 5432).with_envs(
        POSTGRES_USER="postgres", POSTGRES_PASSWORD=owner_password, POSTGRES_DB="policypal"
    )
    postgres.waiting_for(LogMessageWaitStrategy("database system is ready to accept connections"))
    started: list[DockerContainer] = []
    try:
        for container in (nats, postgres):
            container.start()
            started.append(container)
        pg = f"127.0.0.1:{postgres.get_exposed_port(5432)}/policypal"
        yield Settings(
            nats_url=f"nats://127.0.0.1:{nats.get_exposed_port(4222)}",
            database_url=f"postgresql://pp_app:{app_password}@{pg}",
            database_admin_url=f"postgresql://postgres:{owner_password}@{pg}",
            db_app_password=app_password,
        )
    finally:
        for container in reversed(started):
            container.stop()
