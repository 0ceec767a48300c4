"""Bringing up the infrastructure a deployment needs: embedded where no URL is configured.

Used by `policypal up` and by the test fixtures, so tests run on exactly what users run.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from psycopg import sql

from shared.config import Settings
from shared.db.migrate import apply_migrations
from shared.runtime.embedded import EmbeddedNats, EmbeddedPostgres, start_nats, start_postgres
from shared.runtime.nats_cluster import EmbeddedCluster, start_cluster

log = logging.getLogger(__name__)


@dataclass
class Platform:
    nats_url: str
    database_url: str
    database_admin_url: str
    _nats: EmbeddedNats | EmbeddedCluster | None = None
    _postgres: EmbeddedPostgres | None = None
    started: list[str] = field(default_factory=list)
    stream_replicas: int | None = None

    def env(self) -> dict[str, str]:
        """What child processes need to find the infrastructure."""
        env = {
            "PP_NATS_URL": self.nats_url,
            "PP_DATABASE_URL": self.database_url,
            "PP_DATABASE_ADMIN_URL": self.database_admin_url,
        }
        if self.stream_replicas is not None:
            env["PP_STREAM_REPLICAS"] = str(self.stream_replicas)
        return env

    def settings(self, base: Settings) -> Settings:
        update: dict[str, object] = {
            "nats_url": self.nats_url,
            "database_url": self.database_url,
            "database_admin_url": self.database_admin_url,
        }
        if self.stream_replicas is not None:
            update["stream_replicas"] = self.stream_replicas
        return base.model_copy(update=update)

    def revive(self) -> list[str]:
        """Restart embedded servers that died (same ports, same data); the names of those restarted.

        `up` calls this as it polls its workers: a killed nats-server or Postgres is back in seconds
        with its store, and the services' clients reconnect on their own."""
        revived = []
        # A clustered node's loss is what the cluster absorbs; the chaos run restarts nodes itself.
        single_nats = self._nats if isinstance(self._nats, EmbeddedNats) else None
        for name, server in (("nats", single_nats), ("postgres", self._postgres)):
            if server is None or server.alive():
                continue
            log.warning("embedded %s died; restarting it", name)
            try:
                server.restart()
            except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
                log.warning("embedded %s did not restart (%s); trying again", name, exc)
                continue
            revived.append(name)
        return revived

    def wait_bus_healthy(self, timeout_s: float = 60.0) -> str | None:
        """None once a clustered bus is healthy on every node, else why not after `timeout_s`.

        The workers create their consumers, replicated on every node, just before they report ready;
        `up` asks this before it says it is up, so no node is still catching up on them then."""
        if not isinstance(self._nats, EmbeddedCluster):
            return None
        try:
            self._nats.wait_healthy(timeout_s)
        except RuntimeError as exc:
            return str(exc)
        return None

    def stop(self) -> None:
        if self._nats is not None:
            self._nats.stop()
        if self._postgres is not None:
            self._postgres.stop()


def configure_memory(admin_url: str, shared_buffers: str) -> bool:
    """Give the embedded server the configured `shared_buffers`; True when a restart must apply it.

    The default 128 MB cannot hold the HNSW index of a 100k-chunk tenant (~195 MB), and searches then
    read index pages through the I/O workers: p50 7.5 ms instead of ~4.8 ms (docs/benchmarks.md, retrieval).
    """
    with psycopg.connect(admin_url, autocommit=True) as conn:
        current = conn.execute("SHOW shared_buffers").fetchall()[0][0]
        if current.lower() == shared_buffers.lower():
            return False
        conn.execute(sql.SQL("ALTER SYSTEM SET shared_buffers = {}").format(sql.Literal(shared_buffers)))
    log.info("embedded Postgres shared_buffers %s → %s (restarting it)", current, shared_buffers)
    return True


def start_platform(
    settings: Settings, data_dir: Path | None = None, *, migrate: bool = True, nats_cluster: int = 0
) -> Platform:
    """`nats_cluster` ≥ 3 starts that many clustered NATS servers (streams replicated on all of
    them) instead of one; it is ignored when PP_NATS_URL points at an external server."""
    data_dir = (data_dir or settings.data_dir).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    nats: EmbeddedNats | EmbeddedCluster | None = None
    postgres = None
    started = []
    replicas = None
    if settings.nats_url:
        nats_url = settings.nats_url
    elif nats_cluster:
        nats = start_cluster(data_dir / "nats-cluster", nats_cluster)
        nats_url, replicas = nats.url, nats_cluster
        started.append(f"nats cluster ×{nats_cluster}")
    else:
        nats = start_nats(data_dir / "nats", settings.nats_port)
        nats_url = nats.url
        started.append("nats")
    if settings.database_url:
        app_url, admin_url = settings.database_url, settings.admin_url or settings.database_url
    else:
        postgres = start_postgres(data_dir / "pg")
        if configure_memory(postgres.admin_url, settings.embedded_pg_shared_buffers):
            postgres.stop()  # shared_buffers takes effect at server start
            postgres = start_postgres(data_dir / "pg")
        admin_url, app_url = postgres.admin_url, postgres.app_url(settings.db_app_role)
        started.append("postgres")
    platform = Platform(
        nats_url=nats_url,
        database_url=app_url,
        database_admin_url=admin_url,
        _nats=nats,
        _postgres=postgres,
        started=started,
        stream_replicas=replicas,
    )
    if migrate:
        try:
            applied = asyncio.run(apply_migrations(platform.settings(settings)))
        except BaseException:
            platform.stop()
            raise
        if applied:
            log.info("applied migrations: %s", ", ".join(applied))
    return platform
