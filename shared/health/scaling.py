"""Scaling signals in /metrics: the backlog of a worker's durable consumers and the dead letters.

An operator scales an action on its backlog (KEDA reads the same numbers from the NATS
monitoring endpoint) and alerts on age and dead letters; Prometheus gets them from every
replica's /metrics, refreshed every `PP_SCALING_METRICS_INTERVAL_S`. Replicas of one kind share
the consumer, so they report the same values: aggregate with `max`, not `sum`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from datetime import UTC, datetime

from nats.js.errors import NotFoundError
from prometheus_client import Gauge

from shared.bus.connection import Bus

log = logging.getLogger(__name__)

PENDING = Gauge(
    "pp_consumer_pending_messages", "Commands waiting for their first delivery, per durable consumer", ["consumer"]
)
ACK_PENDING = Gauge(
    "pp_consumer_ack_pending_messages", "Commands delivered and not yet acked (in progress)", ["consumer"]
)
REDELIVERED = Gauge("pp_consumer_redelivered_messages", "Commands delivered more than once, unacked", ["consumer"])
OLDEST_AGE = Gauge(
    "pp_consumer_oldest_pending_age_seconds", "Age of the oldest unacked command of the consumer", ["consumer"]
)
DEAD_LETTERS = Gauge("pp_dead_letters", "Messages in the dead-letter stream, per worker kind", ["kind"])


async def oldest_age_s(bus: Bus, stream: str, subject: str, after_seq: int) -> float:
    """Work-queue streams drop acked commands, so the first message on the consumer's subject
    past its ack floor is the oldest one still owed work."""
    try:
        msg = await bus.js.get_msg(stream, seq=after_seq + 1, subject=subject, next=True)
    except NotFoundError:
        return 0.0
    if msg.time is None:
        return 0.0
    return max(0.0, (datetime.now(UTC) - msg.time).total_seconds())


async def refresh_consumer(bus: Bus, durable: str) -> None:
    stream = bus.subjects.commands_stream
    info = await bus.js.consumer_info(stream, durable)
    PENDING.labels(durable).set(info.num_pending or 0)
    ACK_PENDING.labels(durable).set(info.num_ack_pending or 0)
    REDELIVERED.labels(durable).set(info.num_redelivered or 0)
    floor = info.ack_floor.stream_seq if info.ack_floor and info.ack_floor.stream_seq else 0
    subject = info.config.filter_subject or ""
    OLDEST_AGE.labels(durable).set(await oldest_age_s(bus, stream, subject, floor) if subject else 0.0)


async def refresh_dead_letters(bus: Bus) -> None:
    info = await bus.js.stream_info(bus.subjects.dlq_stream, subjects_filter=bus.subjects.dlq_all)
    prefix = bus.subjects.dlq("")
    for subject, count in (info.state.subjects or {}).items():
        DEAD_LETTERS.labels(subject.removeprefix(prefix)).set(count)


async def refresh_forever(bus: Bus, durables: Sequence[str], interval_s: float) -> None:
    """Update the gauges until cancelled; a failed round (node lost, leader election) is retried."""
    quick_until = asyncio.get_running_loop().time() + 60.0
    while True:
        found = 0
        try:
            for durable in durables:
                with contextlib.suppress(NotFoundError):  # not created yet: the worker is starting
                    await refresh_consumer(bus, durable)
                    found += 1
            await refresh_dead_letters(bus)
        except Exception as exc:  # a lost node or a leader election: the next round catches up
            log.debug("scaling metrics not refreshed: %r", exc)
        # While workers are still creating their consumers, look again soon rather than a full interval.
        starting = found < len(durables) and asyncio.get_running_loop().time() < quick_until
        await asyncio.sleep(min(interval_s, 0.5) if starting else interval_s)
