"""Health endpoints for worker processes: `/healthz` (live), `/readyz` (NATS, Postgres, consuming)
and `/metrics` (the default Prometheus registry, with the scaling signals), on `PP_HEALTH_PORT`.

A worker opts in with one line, wrapping its main: `run_service("ingest", with_health(serve,
durables=["ingest"]))`. The wrapper only observes the worker (connection state, the durable
consumer on the server, its main task), so it holds whatever the consumer is built on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence

from shared.health.checks import Readiness
from shared.health.scaling import refresh_forever
from shared.health.server import serve_http
from shared.runtime.service import Infra, ServiceMain

log = logging.getLogger(__name__)

__all__ = ["Readiness", "serve_health", "with_health"]


async def serve_health(infra: Infra, readiness: Readiness) -> asyncio.Server | None:
    """Start the health server on the configured port (none when it is 0)."""
    settings = infra.settings
    if not settings.health_port:
        return None
    server = await serve_http(settings.health_host, settings.health_port, readiness)
    log.info("health endpoints on http://%s:%d (/healthz /readyz /metrics)", settings.health_host, settings.health_port)
    return server


def with_health(main: ServiceMain, *, durables: Sequence[str] = (), subjects: Sequence[str] = ()) -> ServiceMain:
    """`main` with health endpoints and backlog gauges for `durables` for as long as it runs.
    Request-reply workers name the `Subjects` properties they answer instead (`"rpc_embed"`)."""

    async def wrapped(infra: Infra, stop: asyncio.Event) -> None:
        readiness = Readiness(infra, durables=durables, subjects=subjects, stop=stop)
        readiness.main = asyncio.current_task()
        server = await serve_health(infra, readiness)
        gauges = asyncio.create_task(refresh_forever(infra.bus, durables, infra.settings.scaling_metrics_interval_s))
        try:
            await main(infra, stop)
        finally:
            gauges.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await gauges
            if server is not None:
                server.close()
                await server.wait_closed()

    return wrapped
