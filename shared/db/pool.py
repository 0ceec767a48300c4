"""Connection pools and the tenant-scoped transaction every query of tenant data goes through.

RLS policies read `app.tenant_id` and `app.user_id`; `tenant_tx` sets them with
`set_config(..., is_local => true)` so they vanish at commit and never leak across pooled
connections.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from pgvector.psycopg import register_vector_async
from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from shared.config import Settings


async def _configure(conn: AsyncConnection) -> None:
    await register_vector_async(conn)


@dataclass
class Database:
    pool: AsyncConnectionPool
    checkpoint_pool: AsyncConnectionPool

    async def close(self) -> None:
        await self.pool.close()
        await self.checkpoint_pool.close()


async def open_database(settings: Settings, *, min_size: int = 1, max_size: int = 10) -> Database:
    """Open the app pool (RLS applies) and the autocommit pool LangGraph's saver needs."""
    if not settings.database_url:
        raise RuntimeError("PP_DATABASE_URL is not set (`policypal up` sets it for its children)")
    pool = AsyncConnectionPool(
        settings.database_url,
        min_size=min_size,
        max_size=max_size,
        kwargs={"row_factory": dict_row},
        configure=_configure,
        open=False,
    )
    checkpoint_pool = AsyncConnectionPool(
        settings.database_url,
        min_size=1,
        max_size=max_size,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        open=False,
    )
    await pool.open(wait=True, timeout=15)
    await checkpoint_pool.open(wait=True, timeout=15)
    return Database(pool=pool, checkpoint_pool=checkpoint_pool)


@asynccontextmanager
async def tenant_tx(
    db: Database, tenant_id: uuid.UUID | str, user_id: str | None = None
) -> AsyncIterator[AsyncConnection]:
    """A transaction in which RLS lets through only this tenant's (and user's) rows."""
    async with db.pool.connection() as conn, conn.transaction():
        await conn.execute(
            "SELECT set_config('app.tenant_id', %s, true), set_config('app.user_id', %s, true)",
            (str(tenant_id), user_id or ""),
        )
        yield conn
