"""Worker health endpoints on real NATS and Postgres: live, ready once consuming, scaling gauges."""

from __future__ import annotations

import asyncio
import uuid

import httpx
import pytest
from nats.js.api import AckPolicy, ConsumerConfig

from services.ingest.worker import serve as ingest_serve
from shared.health import with_health
from shared.health.scaling import refresh_consumer, refresh_dead_letters
from shared.runtime.embedded import free_port
from shared.runtime.service import Infra
from tests.integration.conftest import running

pytestmark = pytest.mark.integration


async def get(port: int, path: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=5) as client:
        return await client.get(path)


async def until_ready(port: int) -> httpx.Response:
    for _ in range(100):
        response = await get(port, "/readyz")
        if response.status_code == 200:
            return response
        await asyncio.sleep(0.1)
    return response


async def test_worker_serves_live_ready_and_metrics(infra: Infra) -> None:
    port = free_port()
    update = {"health_port": port, "scaling_metrics_interval_s": 0.2}
    infra = Infra(settings=infra.settings.model_copy(update=update), bus=infra.bus, db=infra.db)
    async with running(lambda stop: with_health(ingest_serve, durables=["ingest"])(infra, stop)):
        assert (await get(port, "/healthz")).text == "ok\n"
        ready = await until_ready(port)
        assert ready.status_code == 200, ready.text
        for _ in range(50):  # the gauges appear on the first refresh after the consumer exists
            metrics = (await get(port, "/metrics")).text
            if 'consumer="ingest"' in metrics:
                break
            await asyncio.sleep(0.1)
        assert 'pp_consumer_pending_messages{consumer="ingest"}' in metrics
        assert 'pp_consumer_oldest_pending_age_seconds{consumer="ingest"}' in metrics
        assert (await get(port, "/nope")).status_code == 404
    with pytest.raises(httpx.ConnectError):
        await get(port, "/healthz")  # drained: the server closed with the worker


async def test_not_ready_without_its_consumer(infra: Infra) -> None:
    """A worker whose durable does not exist on the server is not consuming, so not ready."""
    port = free_port()
    infra = Infra(settings=infra.settings.model_copy(update={"health_port": port}), bus=infra.bus, db=infra.db)

    async def idle(infra: Infra, stop: asyncio.Event) -> None:
        await stop.wait()

    async with running(lambda stop: with_health(idle, durables=[f"absent-{uuid.uuid4().hex[:8]}"])(infra, stop)):
        response = await get(port, "/readyz")
        assert response.status_code == 503
        assert "consuming" in response.text


async def test_backlog_gauges_count_pending_and_age(infra: Infra) -> None:
    """Two commands nobody pulls: pending 2, oldest age from the stream's own timestamp."""
    from prometheus_client import REGISTRY

    bus = infra.bus
    subject = f"{bus.subjects.prefix}.cmd.healthprobe.{uuid.uuid4().hex[:8]}"
    durable = f"probe-{uuid.uuid4().hex[:8]}"
    stream = bus.subjects.commands_stream
    await bus.js.add_consumer(
        stream, ConsumerConfig(durable_name=durable, filter_subject=subject, ack_policy=AckPolicy.EXPLICIT)
    )
    try:
        await bus.js.publish(subject, b"{}", stream=stream)
        await bus.js.publish(subject, b"{}", stream=stream)
        await asyncio.sleep(0.3)
        await refresh_consumer(bus, durable)
        await refresh_dead_letters(bus)
        labels = {"consumer": durable}
        assert REGISTRY.get_sample_value("pp_consumer_pending_messages", labels) == 2
        assert REGISTRY.get_sample_value("pp_consumer_ack_pending_messages", labels) == 0
        assert REGISTRY.get_sample_value("pp_consumer_oldest_pending_age_seconds", labels) >= 0.2
    finally:
        await bus.js.delete_consumer(stream, durable)
        await bus.js.purge_stream(stream, subject=subject)


async def test_usage_ledger_rows_count_tokens_and_cost(settings, tenant) -> None:
    import psycopg
    from prometheus_client import REGISTRY

    from shared.db.usage import UsageRow, record_usage

    tenant_id, user_id = tenant
    labels = {"task": "health-probe", "model": "probe-model"}
    before = REGISTRY.get_sample_value("pp_llm_cost_usd_total", labels) or 0.0
    row = UsageRow(user_id, None, None, "health-probe", "probe-model", 120, 30, 0.0042)
    async with await psycopg.AsyncConnection.connect(settings.admin_url) as conn:
        await record_usage(conn, str(tenant_id), row)
    tokens_in = REGISTRY.get_sample_value("pp_llm_tokens_total", {**labels, "direction": "input"})
    assert tokens_in >= 120
    assert REGISTRY.get_sample_value("pp_llm_cost_usd_total", labels) - before == pytest.approx(0.0042)
