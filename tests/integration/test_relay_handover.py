"""The gateway's event hub on real NATS JetStream: one live subscription per process, and the
replay → live hand-over that must deliver every event exactly once, in order (docs/architecture.md §10.1)."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from services.gateway import event_hub
from services.gateway.event_hub import EventHub
from services.gateway.relay import Relay, follow, thread_terminal
from shared.auth.tokens import mint_token
from shared.bus.connection import connect_bus
from shared.contracts import ErrorEvent, StatusEvent
from shared.db import conversations
from shared.db.pool import tenant_tx
from tests.integration.test_gateway import SECRET, gateway_client

pytestmark = pytest.mark.integration


@pytest.fixture
async def relay(infra):
    """The relay a gateway process holds on its state (services/gateway/deps.py)."""
    started = await Relay.start(infra.bus)
    yield started
    await started.stop()


async def publish_status(bus, thread_id: uuid.UUID, run_id: uuid.UUID, n: int) -> int:
    """Publish a numbered status event; returns its stream sequence."""
    event = StatusEvent(thread_id=thread_id, run_id=run_id, node="test", message=str(n))
    ack = await bus.js.publish(bus.subjects.evt_thread(thread_id), event.model_dump_json().encode())
    return ack.seq


async def publish_end(bus, thread_id: uuid.UUID, run_id: uuid.UUID) -> int:
    event = ErrorEvent(thread_id=thread_id, run_id=run_id, code="test_done", message="done")
    ack = await bus.js.publish(bus.subjects.evt_thread(thread_id), event.model_dump_json().encode())
    return ack.seq


async def collect(sub, thread_id: uuid.UUID) -> list[tuple[int, dict]]:
    return [item async for item in follow(sub, timeout_s=30, is_terminal=thread_terminal, thread_id=thread_id)]


async def test_replay_hands_over_to_live_without_gap_or_duplicate(infra, relay):
    """Events published before, while and after the replay is set up and read arrive once, in order."""
    bus, thread_id, run_id = infra.bus, uuid.uuid4(), uuid.uuid4()
    stored = [await publish_status(bus, thread_id, run_id, n) for n in range(20)]
    after = stored[4]

    async def publish_during() -> list[int]:
        seqs = []
        for n in range(20, 120):
            seqs.append(await publish_status(bus, thread_id, run_id, n))
            await asyncio.sleep(0)
        seqs.append(await publish_end(bus, thread_id, run_id))
        return seqs

    publisher = asyncio.create_task(publish_during())
    sub = await relay.subscribe(bus.subjects.evt_thread(thread_id), after_seq=after)
    received = await collect(sub, thread_id)
    published = stored[5:] + await publisher

    assert [seq for seq, _ in received] == published
    assert [int(e["message"]) for _, e in received[:-1]] == list(range(5, 120))
    assert received[-1][1]["type"] == "error"


async def test_events_published_between_attach_and_replay_end_arrive_once(infra, relay):
    """The feed buffers live events from the moment it is attached; the replay covers up to the
    subject's last stored event at that moment: the overlap is delivered once."""
    bus, thread_id, run_id = infra.bus, uuid.uuid4(), uuid.uuid4()
    before = [await publish_status(bus, thread_id, run_id, n) for n in range(10)]
    sub = await relay.subscribe(bus.subjects.evt_thread(thread_id), after_seq=0)
    assert sub.replay is not None and sub.until == before[-1]
    during = [await publish_status(bus, thread_id, run_id, n) for n in range(10, 30)]
    during.append(await publish_end(bus, thread_id, run_id))
    received = await collect(sub, thread_id)
    assert [seq for seq, _ in received] == before + during
    assert sub.replay is None  # handed over to the live feed


async def test_live_stream_is_a_hub_feed_with_no_consumer_of_its_own(infra, relay):
    bus, thread_id, run_id = infra.bus, uuid.uuid4(), uuid.uuid4()
    # A probe attached first sees `old` go through the hub: only then is `old` surely not still on
    # its way to the hub (an ack from JetStream says stored, not delivered to its subscribers).
    probe = await relay.subscribe(bus.subjects.evt_thread(thread_id))
    old = await publish_status(bus, thread_id, run_id, 0)
    await probe.next_msg(timeout=10)
    await probe.unsubscribe()
    sub = await relay.subscribe(bus.subjects.evt_thread(thread_id))
    assert sub.replay is None
    published = [await publish_status(bus, thread_id, run_id, n) for n in range(1, 5)]
    published.append(await publish_end(bus, thread_id, run_id))
    received = await collect(sub, thread_id)
    assert [seq for seq, _ in received] == published
    assert old not in [seq for seq, _ in received]
    assert bus.subjects.evt_thread(thread_id) not in relay.hub.feeds  # detached when the stream ended


async def test_a_stream_that_stops_reading_catches_up_from_jetstream(infra, relay, monkeypatch):
    """Past the live buffer's cap a stream is dropped from the live feed and replays what it missed."""
    monkeypatch.setattr(event_hub, "MAX_BUFFERED", 8)
    bus, thread_id, run_id = infra.bus, uuid.uuid4(), uuid.uuid4()
    sub = await relay.subscribe(bus.subjects.evt_thread(thread_id), after_seq=0)
    published = [await publish_status(bus, thread_id, run_id, n) for n in range(40)]
    published.append(await publish_end(bus, thread_id, run_id))
    for _ in range(200):
        if sub.lagged:
            break
        await asyncio.sleep(0.01)
    assert sub.lagged
    received = await collect(sub, thread_id)
    assert [seq for seq, _ in received] == published


async def test_every_gateway_replica_relays_every_event(settings, infra, relay):
    """Two gateway processes' hubs (two connections) each deliver the same live events."""
    other = await connect_bus(settings, name="gateway-replica")
    hub = EventHub(other)
    await hub.start()
    try:
        thread_id, run_id = uuid.uuid4(), uuid.uuid4()
        subject = infra.bus.subjects.evt_thread(thread_id)
        mine = await relay.subscribe(subject)
        theirs = await hub.attach(subject, None)
        published = [await publish_status(infra.bus, thread_id, run_id, n) for n in range(5)]
        published.append(await publish_end(infra.bus, thread_id, run_id))
        first, second = await asyncio.gather(collect(mine, thread_id), collect(theirs, thread_id))
        assert [s for s, _ in first] == [s for s, _ in second] == published
    finally:
        await hub.stop()
        await other.close()


def parse_sse(body: str) -> list[dict]:
    events = []
    for block in body.split("\r\n\r\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "event" in fields:
            events.append(fields)
    return events


async def test_thread_events_route_replays_then_follows_over_http(settings, infra, tenant):
    """`GET /v1/threads/{id}/events` with `Last-Event-ID`: ids are stream sequences, each event once,
    exactly one terminal event, and `X-Accel-Buffering: no`."""
    tenant_id, user_id = tenant
    thread_id, run_id = uuid.uuid4(), uuid.uuid4()
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        await conversations.create_conversation(conn, thread_id, tenant_id, user_id)
        await conversations.claim_thread(conn, thread_id, user_id, run_id, 600)
    bus = infra.bus
    stored = [await publish_status(bus, thread_id, run_id, n) for n in range(10)]
    token = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)

    async def publish_rest() -> list[int]:
        await asyncio.sleep(0.3)
        seqs = [await publish_status(bus, thread_id, run_id, n) for n in range(10, 40)]
        return [*seqs, await publish_end(bus, thread_id, run_id)]

    async with gateway_client(settings, token) as client:
        publisher = asyncio.create_task(publish_rest())
        response = await client.get(
            f"/v1/threads/{thread_id}/events", headers={"Last-Event-ID": str(stored[2])}, timeout=60
        )
        published = stored[3:] + await publisher
    assert response.status_code == 200
    assert response.headers["x-accel-buffering"] == "no"
    events = parse_sse(response.text)
    assert [int(e["id"]) for e in events] == published
    assert [e["event"] for e in events].count("error") == 1 and events[-1]["event"] == "error"
    assert [json.loads(e["data"])["message"] for e in events[:-1]] == [str(n) for n in range(3, 40)]
