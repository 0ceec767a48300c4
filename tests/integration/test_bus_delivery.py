"""The FastStream command subscribers against the real embedded JetStream server.

Each test pins one delivery rule, and in particular the three FastStream defaults that would
break them: REJECT_ON_ERROR (a failing handler would be `term`ed, never retried), no
`graceful_timeout` for NATS (SIGTERM would drop the command in hand) and `max_workers > 1` on
a pull subscriber (over-fetching delivers a command twice, ag2ai/faststream#2563).
In-memory `TestNatsBroker` fakes ack/nak/term, so none of this could be tested with it.
"""

from __future__ import annotations

import asyncio
import collections
import json
import uuid

import pytest

from shared.bus.consumer import Delivery
from shared.bus.delivery import BadInput
from shared.contracts.common import Envelope
from tests.integration.lane import Lane, serving, until

pytestmark = pytest.mark.integration


async def test_a_failing_handler_is_retried_with_backoff_then_dead_lettered(lane, settings):
    attempts: list[Delivery] = []

    async def always_fails(cmd: Envelope, delivery: Delivery) -> None:
        attempts.append(delivery)
        raise RuntimeError("stage blew up")

    stop, task = await serving(settings, lane.router(always_fails))
    try:
        [run_id] = await lane.send()
        await until(lambda: bool(lane.dead))
    finally:
        stop.set()
        await task
    # Not terminated on the first exception (FastStream's default): every delivery was tried.
    assert [d.attempt for d in attempts] == list(range(1, settings.max_deliver + 1))
    assert attempts[-1].is_last_attempt and not attempts[0].is_last_attempt
    [(raw, reason)] = lane.dead
    assert json.loads(raw)["run_id"] == str(run_id) and "RuntimeError: stage blew up" in reason
    dlq = await lane.infra.bus.js.get_last_msg(
        lane.infra.bus.subjects.dlq_stream, lane.infra.bus.subjects.dlq(lane.kind)
    )
    assert json.loads(dlq.data)["run_id"] == str(run_id) and dlq.headers["Pp-Dlq-Subject"] == lane.subject
    assert await lane.consumer_state() == (0, 0)


async def test_bad_input_is_refused_at_once_neither_retried_nor_dead_lettered(lane, settings):
    attempts: list[Delivery] = []

    async def refuses(cmd: Envelope, delivery: Delivery) -> None:
        attempts.append(delivery)
        raise BadInput("invalid_answer", "That answer does not fit the question.")

    stop, task = await serving(settings, lane.router(refuses))
    try:
        [run_id] = await lane.send()
        await until(lambda: bool(lane.refused))
        for _ in range(100):  # acked, not handed back: nothing pending, nothing awaiting its ack
            if await lane.consumer_state() == (0, 0):
                break
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        await task
    assert [d.attempt for d in attempts] == [1] and lane.dead == []
    [(raw, exc)] = lane.refused
    assert json.loads(raw)["run_id"] == str(run_id) and exc.code == "invalid_answer"
    assert await lane.consumer_state() == (0, 0)


async def test_a_refusal_that_cannot_be_told_is_retried_like_any_failure(lane, settings):
    attempts: list[Delivery] = []
    told: list[int] = []

    async def refuses(cmd: Envelope, delivery: Delivery) -> None:
        attempts.append(delivery)
        raise BadInput("invalid_answer", "no")

    async def flaky_hook(raw: bytes, exc: BadInput) -> None:
        told.append(len(told))
        if len(told) == 1:
            raise ConnectionError("NATS went away while telling the client")
        lane.refused.append((raw, exc))

    lane.on_bad_input = flaky_hook
    stop, task = await serving(settings, lane.router(refuses))
    try:
        await lane.send()
        await until(lambda: bool(lane.refused))
    finally:
        stop.set()
        await task
    assert [d.attempt for d in attempts] == [1, 2] and len(told) == 2 and lane.dead == []
    assert await lane.consumer_state() == (0, 0)


async def test_an_invalid_payload_is_dead_lettered_at_once_without_reaching_the_handler(lane, settings):
    reached: list[Envelope] = []

    async def handler(cmd: Envelope, delivery: Delivery) -> None:
        reached.append(cmd)

    stop, task = await serving(settings, lane.router(handler))
    try:
        await lane.infra.bus.js.publish(lane.subject, b'{"run_id": "not-a-uuid"}')
        await until(lambda: bool(lane.dead))
    finally:
        stop.set()
        await task
    assert reached == []
    [(_, reason)] = lane.dead
    assert reason.startswith("invalid Envelope") and "run_id" in reason
    assert await lane.consumer_state() == (0, 0)


async def test_a_stage_longer_than_ack_wait_is_kept_alive_not_redelivered(lane, settings):
    quick = settings.model_copy(update={"ack_wait_s": 1.0})
    lane.settings = quick
    calls: list[int] = []

    async def slow(cmd: Envelope, delivery: Delivery) -> None:
        calls.append(delivery.attempt)
        await asyncio.sleep(3.0)

    stop, task = await serving(quick, lane.router(slow))
    try:
        await lane.send()
        await until(lambda: bool(calls))
        await asyncio.sleep(4.0)
    finally:
        stop.set()
        await task
    assert calls == [1]
    assert await lane.consumer_state() == (0, 0)


async def test_stop_drains_the_command_in_hand_before_disconnecting(lane, settings):
    started, finished = asyncio.Event(), []

    async def slow(cmd: Envelope, delivery: Delivery) -> None:
        started.set()
        await asyncio.sleep(1.5)
        finished.append(cmd.run_id)

    stop, task = await serving(settings, lane.router(slow))
    [run_id] = await lane.send()
    await asyncio.wait_for(started.wait(), 10)
    stop.set()
    await asyncio.wait_for(task, 15)
    assert finished == [run_id]
    assert await lane.consumer_state() == (0, 0)


async def test_replicas_with_concurrent_subscribers_deliver_each_command_once_under_load(lane, settings):
    seen: collections.Counter[uuid.UUID] = collections.Counter()
    in_flight, most = 0, 0

    async def work(cmd: Envelope, delivery: Delivery) -> None:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        seen[cmd.run_id] += 1
        await asyncio.sleep(0.01)
        in_flight -= 1

    # Two "replicas" (brokers with their own connections), three subscribers each, one durable.
    first = await serving(settings, lane.router(work, concurrency=3))
    second = await serving(settings, lane.router(work, concurrency=3))
    try:
        ids = await lane.send(300)
        await until(lambda: sum(seen.values()) >= len(ids), timeout=60)
        await asyncio.sleep(1.0)  # a duplicate would arrive after the last first delivery
    finally:
        for stop, task in (first, second):
            stop.set()
            await task
    assert set(seen) == set(ids)
    assert max(seen.values()) == 1
    assert most > 1  # the subscribers really did work concurrently
    assert await lane.consumer_state() == (0, 0)


async def test_a_command_fetched_as_the_subscriber_stops_is_handed_back_at_once(infra, settings):
    """A fetch under way when a replica starts stopping can still return a command; FastStream's
    `consume` then returns before any middleware. The subscriber hands it back (`nak`) so another
    replica takes it now, not after `ack_wait` (a minute here, so waiting it out would fail)."""
    lane = Lane(infra, settings.model_copy(update={"ack_wait_s": 60.0}))
    reached: list[uuid.UUID] = []

    async def handler(cmd: Envelope, delivery: Delivery) -> None:
        reached.append(cmd.run_id)

    router = lane.router(handler, concurrency=1)
    stop, task = await serving(lane.settings, router)
    stop.set()
    await task
    [subscriber] = router.subscribers
    assert not subscriber.running
    fetcher = await infra.bus.js.pull_subscribe_bind(lane.name, infra.bus.subjects.commands_stream)
    try:
        [run_id] = await lane.send()
        [fetched] = await fetcher.fetch(1, timeout=10)
        await subscriber.consume(fetched)  # what the fetch loop does with a command it got back
        [again] = await fetcher.fetch(1, timeout=10)  # well before ack_wait
        assert again.metadata.num_delivered == 2
        assert Envelope.model_validate_json(again.data).run_id == run_id
        await again.ack()
    finally:
        await fetcher.unsubscribe()
        await infra.bus.js.delete_consumer(infra.bus.subjects.commands_stream, lane.name)
    assert reached == []  # a stopped subscriber never runs its handler
