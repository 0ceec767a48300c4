"""Durable command subscribers on the commands stream, declared the FastStream way.

Each worker kind has one router whose middleware is its `DeliveryPolicy`, and one durable pull
consumer per command subject shared by all its replicas. Concurrency inside a process comes from
several batch-1 pull subscribers bound to that same durable: FastStream's `max_workers` on a
pull subscriber over-fetches and delivers messages twice (ag2ai/faststream#2563).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from faststream import AckPolicy
from faststream.nats import JStream, NatsRouter, PullSub
from nats.aio.msg import Msg
from nats.js.api import AckPolicy as JsAckPolicy
from nats.js.api import ConsumerConfig, DeliverPolicy
from pydantic import BaseModel

from shared.bus.connection import Bus
from shared.bus.delivery import (
    OUTAGE_REDELIVERIES,
    BadInputHook,
    DeadLetterHook,
    Delivery,
    DeliveryPolicy,
    payload_decoder,
)
from shared.config import Settings
from shared.db.pool import Database

__all__ = ["Delivery", "command_subscriber", "commands_router"]

F = TypeVar("F", bound=Callable[..., Any])

FETCH_TIMEOUT_S = 1.0
MAX_ACK_PENDING = 1000


def commands_router(
    bus: Bus,
    settings: Settings,
    *,
    kind: str,
    on_dead_letter: DeadLetterHook | None = None,
    on_bad_input: BadInputHook | None = None,
    database: Database | None = None,
) -> NatsRouter:
    """The router of one worker kind: every subscriber on it follows the same delivery rules and
    dead-letters to `pp.dlq.<kind>`; `on_bad_input` tells the client of a command refused for its
    content (`BadInput`); with `database`, its handlers ride out a Postgres outage."""
    policy = DeliveryPolicy(
        bus=bus,
        kind=kind,
        max_deliver=settings.max_deliver,
        ack_wait_s=settings.ack_wait_s,
        on_dead_letter=on_dead_letter,
        on_bad_input=on_bad_input,
        database=database,
        outage_ride_out_s=settings.outage_ride_out_s,
    )
    return NatsRouter(middlewares=[policy])


def consumer_config(subject: str, durable: str, settings: Settings) -> ConsumerConfig:
    return ConsumerConfig(
        durable_name=durable,
        filter_subject=subject,
        ack_policy=JsAckPolicy.EXPLICIT,
        deliver_policy=DeliverPolicy.ALL,
        ack_wait=settings.ack_wait_s,
        max_deliver=settings.max_deliver + OUTAGE_REDELIVERIES,
        max_ack_pending=MAX_ACK_PENDING,
    )


def command_subscriber(
    router: NatsRouter,
    bus: Bus,
    settings: Settings,
    *,
    subject: str,
    durable: str,
    model: type[BaseModel],
    description: str,
    concurrency: int = 2,
) -> Callable[[F], F]:
    """Register the decorated handler on `concurrency` batch-1 pull subscribers of one durable.

    Ack policy NACK_ON_ERROR is only a safety net (FastStream's default would `term` on any
    exception): the router's `DeliveryPolicy` settles every failure itself.
    """

    def register(handler: F) -> F:
        # FastStream wraps the handler once and every further subscriber reuses that wrapper.
        wrapped: Any = handler
        for n in range(concurrency):
            subscriber = router.subscriber(
                subject,
                stream=JStream(bus.subjects.commands_stream, declare=False),
                durable=durable,
                config=consumer_config(subject, durable, settings),
                pull_sub=PullSub(batch_size=1, timeout=FETCH_TIMEOUT_S),
                ack_policy=AckPolicy.NACK_ON_ERROR,
                decoder=payload_decoder(model),
                title=f"{subject}:{durable}",
                description=description,
                include_in_schema=n == 0,
            )
            wrapped = subscriber(wrapped)
            _hand_back_when_stopping(subscriber)
        return handler

    return register


def _hand_back_when_stopping(subscriber: Any) -> None:
    """A fetch under way when stop begins can still return a command, which FastStream then leaves
    unacked (it only consumes while running): it would wait out ack_wait before redelivery. `nak`
    it instead, so another replica takes it at once."""
    consume = subscriber.consume

    async def consume_or_hand_back(msg: Msg) -> Any:
        if not subscriber.running:
            await msg.nak()
            return None
        return await consume(msg)

    subscriber.consume = consume_or_hand_back
