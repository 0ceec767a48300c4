"""The life cycle every worker process shares: settings, logging, bus, database, drain on SIGTERM."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable

from shared.bus.connection import Bus, connect_bus
from shared.config import Settings, get_settings
from shared.db.migrate import check_embedding_dim
from shared.db.pool import Database, open_database
from shared.embeddings.client import EmbeddingClient
from shared.embeddings.provider import use_embedding_service
from shared.telemetry.logging import configure_logging
from shared.telemetry.otel import flush_tracing, setup_tracing

log = logging.getLogger(__name__)


class Infra:
    """What a service's main receives: settings, the bus and, where the service uses one, the database."""

    def __init__(self, settings: Settings, bus: Bus, db: Database | None) -> None:
        self.settings = settings
        self.bus = bus
        self._db = db

    @property
    def db(self) -> Database:
        """The database; a service started with `needs_db=False` (the embedding service) has none."""
        if self._db is None:
            raise RuntimeError("this service runs without a database (run_service(needs_db=False))")
        return self._db

    @property
    def maybe_db(self) -> Database | None:
        """The database where code can do without one: the embedding service's stored vectors, a command
        router's outage ride-out, and routers declared for the AsyncAPI document (no connections)."""
        return self._db


ServiceMain = Callable[[Infra, asyncio.Event], Awaitable[None]]


async def run_service(name: str, main: ServiceMain, *, needs_db: bool = True, embeds_remotely: bool = True) -> None:
    """Connect, run `main` until SIGTERM/SIGINT sets `stop`, then drain and close.

    `main` must return once `stop` is set, after finishing (or nacking) in-flight work. Every
    service but the embedding service itself embeds through it (`embeds_remotely`), so no
    other process loads a model.
    """
    settings = get_settings()
    configure_logging(name, settings.log_level)
    setup_tracing(name)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    bus = await connect_bus(settings, name=name)
    if embeds_remotely:
        use_embedding_service(EmbeddingClient.for_settings(bus, settings))
    db = await open_database(settings) if needs_db else None
    if db is not None:
        async with db.connection() as conn:
            await check_embedding_dim(conn, settings.embedding_dim)
    log.info("%s started", name)
    try:
        await main(Infra(settings=settings, bus=bus, db=db), stop)
    finally:
        log.info("%s draining", name)
        await bus.close()
        if db is not None:
            await db.close()
        flush_tracing()
        log.info("%s stopped", name)
