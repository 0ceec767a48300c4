"""Lookups made at the same moment, answered together: one query per tenant for the whole batch.

The first lookup for a tenant starts a drain task; every lookup that arrives while its query runs
joins the next batch. An idle gateway therefore asks once per lookup, as before, while a burst
(1,000 clients opening their streams at once) costs a handful of queries instead of 1,000.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from shared.db.conn import Conn
from shared.db.pool import Database, tenant_tx

K = TypeVar("K")
V = TypeVar("V")

# Lookups per query; a larger burst is answered by several queries in a row.
MAX_BATCH = 500


class TenantBatch(Generic[K, V]):
    """`await batch.get(tenant_id, key)`: `fetch(conn, keys)` answers, in order, all waiting keys."""

    def __init__(self, db: Database, fetch: Callable[[Conn, list[K]], Awaitable[list[V]]]) -> None:
        self.db = db
        self.fetch = fetch
        self.waiting: dict[uuid.UUID, list[tuple[K, asyncio.Future[V]]]] = {}
        self.drains: dict[uuid.UUID, asyncio.Task[None]] = {}

    async def get(self, tenant_id: uuid.UUID, key: K) -> V:
        future: asyncio.Future[V] = asyncio.get_running_loop().create_future()
        self.waiting.setdefault(tenant_id, []).append((key, future))
        if tenant_id not in self.drains:
            self.drains[tenant_id] = asyncio.create_task(self._drain(tenant_id))
        return await future

    async def _drain(self, tenant_id: uuid.UUID) -> None:
        try:
            while waiting := self.waiting.pop(tenant_id, None):
                if len(waiting) > MAX_BATCH:
                    self.waiting[tenant_id] = waiting[MAX_BATCH:]
                await self._answer(tenant_id, [(key, f) for key, f in waiting[:MAX_BATCH] if not f.done()])
        finally:
            del self.drains[tenant_id]
            for _, future in self.waiting.pop(tenant_id, []):  # left only when the drain was cancelled
                future.cancel()

    async def _answer(self, tenant_id: uuid.UUID, batch: list[tuple[K, asyncio.Future[V]]]) -> None:
        if not batch:
            return
        try:
            async with tenant_tx(self.db, tenant_id) as conn:
                values = await self.fetch(conn, [key for key, _ in batch])
        except BaseException as exc:  # every waiter sees the failure (a 503 when Postgres is down)
            for _, future in batch:
                if future.done():
                    continue
                if isinstance(exc, Exception):
                    future.set_exception(exc)
                else:
                    future.cancel()
            if not isinstance(exc, Exception):
                raise
            return
        for (_, future), value in zip(batch, values, strict=True):
            if not future.done():
                future.set_result(value)
