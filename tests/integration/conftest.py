"""Integration fixtures: real bus and database connections, and workers running in-process.

Workers here are the production `serve` coroutines on real NATS and Postgres, run as tasks
of the test's event loop (the e2e suite runs them as separate OS processes).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator

import pytest

from shared.bus.connection import connect_bus
from shared.config import Settings
from shared.db.pool import open_database
from shared.db.tenants import ensure_tenant
from shared.runtime.service import Infra
from tests.integration.lane import Lane

pytestmark = pytest.mark.integration


@pytest.fixture
async def infra(settings: Settings) -> AsyncIterator[Infra]:
    bus = await connect_bus(settings, name="tests")
    db = await open_database(settings)
    yield Infra(settings=settings, bus=bus, db=db)
    await bus.close()
    await db.close()


@pytest.fixture
async def tenant(settings: Settings) -> tuple[uuid.UUID, str]:
    tenant_id, user_id = uuid.uuid4(), f"user-{uuid.uuid4().hex[:8]}"
    await ensure_tenant(settings.admin_url, tenant_id, "Test tenant", user_id)
    return tenant_id, user_id


@contextlib.asynccontextmanager
async def running(*services) -> AsyncIterator[None]:
    """Run worker `serve(infra, stop)` coroutines until the block ends, then drain them."""
    stop = asyncio.Event()
    tasks = [asyncio.create_task(service(stop)) for service in services]
    await asyncio.sleep(0.5)
    try:
        yield
    finally:
        stop.set()
        done, pending = await asyncio.wait(tasks, timeout=15)
        for task in pending:
            task.cancel()
        for task in done:
            if task.exception() is not None:
                raise task.exception()


@pytest.fixture
async def lane(infra: Infra, settings: Settings) -> AsyncIterator[Lane]:
    made = Lane(infra, settings)
    yield made
    await infra.bus.js.delete_consumer(infra.bus.subjects.commands_stream, made.name)
