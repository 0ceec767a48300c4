"""A stage's events leave through an ordered outbox: the graph does not wait for each publish's
acknowledgement, yet the stream sees every event once, in order, and a lost publish stops the stage."""

from __future__ import annotations

import uuid

import pytest
from nats.errors import ConnectionClosedError

from shared.bus.connection import connect_bus
from shared.bus.events import RunEvents
from shared.contracts.events import StatusEvent, TokenEvent
from shared.runtime.service import Infra
from tests.integration.helpers import read_events


def stage_events(infra: Infra, bus=None) -> RunEvents:
    return RunEvents(bus=bus or infra.bus, thread_id=uuid.uuid4(), run_id=uuid.uuid4(), stage="resolve")


def status(events: RunEvents, n: int) -> StatusEvent:
    return StatusEvent(thread_id=events.thread_id, run_id=events.run_id, node=f"node{n}", message=f"step {n}")


async def test_events_reach_the_stream_once_in_order_with_their_ids(infra: Infra) -> None:
    events = stage_events(infra)
    for n in range(40):
        await events.emit(status(events, n))
        await events.emit(TokenEvent(thread_id=events.thread_id, run_id=events.run_id, text=f"w{n} "))
    await events.flush()

    seen = await read_events(infra, events.subject, until=lambda e: "w39" in e.get("text", ""))
    assert [e["node"] for e in seen if e["type"] == "status"] == [f"node{n}" for n in range(40)]
    # Each status flushes the words before it: the text stays where it was said.
    said = [e["text"].split() if e["type"] == "token" else [e["node"]] for e in seen]
    assert [w for part in said for w in part] == [x for n in range(40) for x in (f"node{n}", f"w{n}")]
    ids = [e["_headers"]["Nats-Msg-Id"] for e in seen]
    assert ids == [f"{events.run_id}:resolve:{n}" for n in range(1, len(seen) + 1)]


async def test_the_window_s_words_go_out_before_the_terminal_event(infra: Infra) -> None:
    events = stage_events(infra)
    for n in range(5):
        await events.emit(TokenEvent(thread_id=events.thread_id, run_id=events.run_id, text=f"w{n} "))
    await events.emit_once(status(events, 99), key="terminal")

    seen = await read_events(infra, events.subject, until=lambda e: e.get("node") == "node99")
    assert "".join(e["text"] for e in seen[:-1]).split() == [f"w{n}" for n in range(5)]
    assert seen[-1]["_headers"]["Nats-Msg-Id"] == f"{events.run_id}:terminal"


async def test_a_lost_publish_stops_the_stage_and_nothing_after_it_is_sent(infra: Infra) -> None:
    own = await connect_bus(infra.settings, name="tests-run-events")
    events = stage_events(infra, own)
    await events.emit(status(events, 0))
    await events.flush()
    await own.nc.close()  # the bus is gone for this process

    await events.emit(status(events, 1))
    with pytest.raises(ConnectionClosedError):
        await events.flush()
    with pytest.raises(ConnectionClosedError):
        await events.emit(status(events, 2))

    seen = await read_events(infra, events.subject, until=lambda e: e.get("node") == "node0")
    assert [e["node"] for e in seen] == ["node0"]
