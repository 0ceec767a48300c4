"""Connection pools and the tenant-scoped transaction every query of tenant data goes through.

RLS policies read `app.tenant_id` and `app.user_id`; `tenant_tx` sets them with
`set_config(..., is_local => true)` so they vanish at commit and never leak across pooled
connections.

Fail fast when Postgres is down: a short acquire timeout, a check of every connection handed out
(a restarted server leaves only dead ones in the pool), a short reconnect horizon (the pool's own
backoff otherwise waits up to minutes after the server is back) and a circuit that answers at once
while the database is known to be down.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import psycopg
from pgvector.psycopg import register_vector_async
from psycopg import AsyncConnection
from psycopg.rows import DictRow, dict_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from shared.config import Settings
from shared.db.circuit import Circuit
from shared.db.conn import Conn

T = TypeVar("T")


async def _configure(conn: Conn) -> None:
    await register_vector_async(conn)


@dataclass
class Database:
    pool: AsyncConnectionPool[Conn]
    checkpoint_pool: AsyncConnectionPool[Conn]
    circuit: Circuit = field(default_factory=Circuit)
    failed_connects: int = 0
    """The pool's failed connection attempts when it last handed out a connection."""

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[Conn]:
        """A pooled connection through the circuit: `DatabaseUnavailable` at once during an outage."""
        self.circuit.admit()
        try:
            async with self.pool.connection() as conn:
                self.circuit.succeeded()
                self.failed_connects = self._failed_connects()
                try:
                    yield conn
                except psycopg.OperationalError as exc:
                    if conn.broken:  # the server went away, not a failed statement
                        self.circuit.failed(exc)
                    raise
        except PoolTimeout as exc:
            # A wait that timed out is an outage only when connecting failed meanwhile. A full pool is
            # load; so is one still growing: on a loaded machine a new connection can take longer than
            # the acquire timeout, and opening the circuit then failed every request for a while.
            if self._failed_connects() > self.failed_connects:
                self.circuit.failed(exc)
            raise

    def _failed_connects(self) -> int:
        return self.pool.get_stats().get("connections_errors", 0)

    async def reachable(self) -> bool:
        """One round trip through the circuit: False while Postgres is down."""
        try:
            async with self.connection() as conn:
                await conn.execute("SELECT 1")
        except (psycopg.OperationalError, PoolTimeout):
            return False
        return True

    async def back_within(self, timeout_s: float, poll_s: float = 1.0) -> bool:
        """Wait for Postgres to answer again, probing every `poll_s`; False if it did not in time."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while loop.time() < deadline:
            await asyncio.sleep(min(poll_s, max(deadline - loop.time(), 0.0)))
            if await self.reachable():
                return True
        return False

    async def close(self) -> None:
        await self.pool.close()
        await self.checkpoint_pool.close()


async def open_database(settings: Settings, *, min_size: int = 1, max_size: int = 10) -> Database:
    """Open the app pool (RLS applies) and the autocommit pool LangGraph's saver needs."""
    if not settings.database_url:
        raise RuntimeError("PP_DATABASE_URL is not set (`policypal up` sets it for its children)")
    url = settings.database_url
    pool = _fail_fast_pool(
        url, settings, min_size=min_size, max_size=max_size, kwargs={"row_factory": dict_row}, configure=_configure
    )
    checkpoint_pool = _fail_fast_pool(
        url,
        settings,
        min_size=1,
        max_size=max_size,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
    )
    await pool.open(wait=True, timeout=15)
    await checkpoint_pool.open(wait=True, timeout=15)
    return Database(pool=pool, checkpoint_pool=checkpoint_pool)


def _fail_fast_pool(
    url: str,
    settings: Settings,
    *,
    min_size: int,
    max_size: int,
    kwargs: dict[str, Any],
    configure: Callable[[Conn], Awaitable[None]] | None = None,
) -> AsyncConnectionPool[Conn]:
    """A pool that fails fast while Postgres is down (see the module's docstring)."""
    return AsyncConnectionPool(
        url,
        connection_class=AsyncConnection[DictRow],
        min_size=min_size,
        max_size=max_size,
        kwargs=kwargs,
        configure=configure,
        timeout=settings.db_acquire_timeout_s,
        reconnect_timeout=settings.db_reconnect_timeout_s,
        check=AsyncConnectionPool.check_connection,
        open=False,
    )


@asynccontextmanager
async def tenant_tx(db: Database, tenant_id: uuid.UUID | str, user_id: str | None = None) -> AsyncIterator[Conn]:
    """A transaction in which RLS lets through only this tenant's (and user's) rows."""
    async with db.connection() as conn, conn.transaction():
        await conn.execute(
            "SELECT set_config('app.tenant_id', %s, true), set_config('app.user_id', %s, true)",
            (str(tenant_id), user_id or ""),
        )
        yield conn


async def in_tenant_tx(
    db: Database,
    tenant_id: uuid.UUID | str,
    user_id: str | None,
    work: Callable[[Conn], Awaitable[T]],
    *,
    attempts: int = 4,
) -> T:
    """`work` in a `tenant_tx`, run again from the start when Postgres rolled it back as a deadlock's
    victim (or a serialization failure). Such a rollback is two writers meeting, not an outage: an
    upload whose `INSERT … ON CONFLICT` met ingest's `UPDATE` of the same document once answered 503.
    `work` must do nothing outside the transaction that a second run would repeat."""
    for attempt in range(1, attempts):
        try:
            async with tenant_tx(db, tenant_id, user_id) as conn:
                return await work(conn)
        except (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure):
            await asyncio.sleep(random.uniform(0.01, 0.05) * attempt)
    async with tenant_tx(db, tenant_id, user_id) as conn:
        return await work(conn)


async def ping(conn: Conn) -> None:
    """One round trip: the readiness probes' proof that Postgres answers."""
    await conn.execute("SELECT 1")
