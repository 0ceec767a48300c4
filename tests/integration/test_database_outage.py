"""A Postgres outage answers every request with a prompt 503 and recovers as soon as Postgres does.

The test owns a second embedded Postgres (the session's is shared by every other test), kills it
with SIGKILL mid-session, and restarts it on the same data directory the way `up` does.
"""

from __future__ import annotations

import asyncio
import json
import uuid

import httpx
import pytest
from psycopg_pool import PoolTimeout

from services.gateway.app import create_app
from shared.auth.tokens import mint_token
from shared.bus.consumer import Delivery
from shared.config import Settings
from shared.contracts import ActionCommand
from shared.contracts.common import Envelope
from shared.db import conversations
from shared.db.pool import open_database, tenant_tx
from shared.db.tenants import ensure_tenant
from shared.graph.stage import StageWorker, stage_llm
from shared.runtime.platform import start_platform
from shared.runtime.service import Infra
from tests.integration.helpers import read_events, turn_finished
from tests.integration.lane import serving, until

pytestmark = pytest.mark.integration
SECRET = "outage-secret-0123456789abcdef0123456789"
# A client timeout far above the 1 s acquire timeout and far below the old 30 s pool wait: a request
# that hangs the way it used to fails the test instead of answering late.
CLIENT_TIMEOUT_S = 8.0


@pytest.fixture
async def own_postgres(settings: Settings, tmp_path):
    base = Settings(nats_url=settings.nats_url, database_url=None, database_admin_url=None)
    platform = await asyncio.to_thread(start_platform, base, tmp_path)
    yield platform
    await asyncio.to_thread(platform.stop)


async def until_ready(client: httpx.AsyncClient, attempts: int = 100) -> int:
    """Polls /readyz; returns how many polls (0.1 s apart) it took to report ready."""
    for attempt in range(attempts):
        if (await client.get("/readyz")).status_code == 200:
            return attempt
        await asyncio.sleep(0.1)
    raise AssertionError("the gateway never became ready again")


async def test_requests_fail_fast_during_an_outage_and_recover_when_postgres_is_back(settings, own_postgres):
    configured = own_postgres.settings(settings).model_copy(update={"secret_key": SECRET})
    tenant, user = uuid.uuid4(), "olive"
    await ensure_tenant(own_postgres.database_admin_url, tenant, "Outage Co", user)
    token = mint_token(SECRET, tenant_id=tenant, sub=user)
    app = create_app(configured)
    transport = httpx.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://gw", headers=headers, timeout=CLIENT_TIMEOUT_S) as gw,
    ):
        assert (await gw.get("/v1/documents")).status_code == 200

        own_postgres._postgres.kill()
        assert not own_postgres._postgres.alive()
        during = [await gw.get(path) for path in ("/v1/documents", "/v1/conversations", "/v1/profile") * 5]
        assert {r.status_code for r in during} == {503}
        assert {r.json()["error"]["code"] for r in during} == {"database_unavailable"}
        assert (await gw.get("/readyz")).json()["checks"] == {"nats": True, "postgres": False}
        assert (await gw.get("/healthz")).status_code == 200

        assert await asyncio.to_thread(own_postgres.revive) == ["postgres"]
        await until_ready(gw)
        assert (await gw.get("/v1/documents")).status_code == 200
        assert (await gw.get("/v1/conversations")).status_code == 200


async def test_a_command_failing_on_a_database_outage_is_held_until_postgres_is_back(lane, settings, own_postgres):
    """An outage far longer than the retry budget (3 attempts, 2 + 4 s of backoff) costs one attempt:
    the command is held, heartbeating past its lease, and retried once Postgres answers; never
    dead-lettered."""
    database = await open_database(own_postgres.settings(settings), max_size=2)
    attempts: list[int] = []

    async def reads_the_database(cmd: Envelope, delivery: Delivery) -> None:
        attempts.append(delivery.attempt)
        async with database.connection() as conn:
            await conn.execute("SELECT 1")

    own_postgres._postgres.kill()
    stop, task = await serving(settings, lane.router(reads_the_database, database=database))
    try:
        await lane.send()
        await until(lambda: len(attempts) == 1)
        await asyncio.sleep(settings.ack_wait_s + 6)
        assert attempts == [1] and not lane.dead
        assert await asyncio.to_thread(own_postgres.revive) == ["postgres"]
        await until(lambda: len(attempts) == 2)
        while await lane.consumer_state() != (0, 0):
            await asyncio.sleep(0.1)
    finally:
        stop.set()
        await task
        await database.close()
    assert attempts == [1, 2] and not lane.dead


async def test_a_command_is_dead_lettered_once_the_outage_outlasts_the_ride_out(lane, settings, own_postgres):
    short = settings.model_copy(update={"outage_ride_out_s": 3.0})
    lane.settings = short
    database = await open_database(own_postgres.settings(settings), max_size=2)

    async def reads_the_database(cmd: Envelope, delivery: Delivery) -> None:
        async with database.connection() as conn:
            await conn.execute("SELECT 1")

    own_postgres._postgres.kill()
    stop, task = await serving(short, lane.router(reads_the_database, database=database))
    try:
        [run_id] = await lane.send()
        await until(lambda: bool(lane.dead), timeout=20)
    finally:
        stop.set()
        await task
        await database.close()
    [(raw, reason)] = lane.dead
    assert json.loads(raw)["run_id"] == str(run_id) and "database stayed unavailable" in reason


async def test_giving_up_on_a_run_reaches_the_client_while_postgres_is_down(infra, settings, own_postgres):
    """The dead-letter's `error` event goes out without the database; the thread is released once
    Postgres is back."""
    configured = own_postgres.settings(settings)
    database = await open_database(configured, max_size=2)
    tenant, user, thread_id = uuid.uuid4(), "nora", uuid.uuid4()
    await ensure_tenant(own_postgres.database_admin_url, tenant, "Outage Co", user)
    run_id = uuid.uuid4()
    async with tenant_tx(database, tenant, user) as conn:
        await conversations.create_conversation(conn, thread_id, tenant, user)
        assert await conversations.claim_thread(conn, thread_id, user, run_id, 300.0)
    own = Infra(settings=configured, bus=infra.bus, db=database)
    worker = StageWorker(infra=own, graph=None, stage="action", llm=stage_llm(own))
    command = ActionCommand(run_id=run_id, tenant_id=tenant, user_id=user, thread_id=thread_id, action="inquire")
    try:
        own_postgres._postgres.kill()
        await worker.dead_letter(command.model_dump_json().encode(), "the database stayed unavailable")
        [event] = await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(run_id))
        assert event["type"] == "error" and event["code"] == "dead_letter"
        assert await asyncio.to_thread(own_postgres.revive) == ["postgres"]
        async with asyncio.timeout(20):
            while worker.releasing:
                await asyncio.sleep(0.1)
        async with tenant_tx(database, tenant, user) as conn:
            row = await conversations.get_conversation(conn, thread_id, user)
        assert row["status"] == "idle"
    finally:
        await database.close()


async def test_a_busy_pool_is_load_not_an_outage(settings):
    """A request that times out while the pool is still opening a connection (slower than the acquire
    timeout on a loaded machine; here a timeout too short for any connect) gets its 503, and the
    circuit stays closed: the next request is served, not failed fast for the probe interval."""
    db = await open_database(settings.model_copy(update={"db_acquire_timeout_s": 0.001}), max_size=3)
    try:
        async with db.connection() as held:
            with pytest.raises(PoolTimeout):
                async with db.connection():
                    pass
            await held.execute("SELECT 1")
        assert not db.circuit.is_open
        async with db.connection() as conn:
            assert (await (await conn.execute("SELECT 1 AS one")).fetchone())["one"] == 1
    finally:
        await db.close()
