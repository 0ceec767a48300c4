"""The FastStream broker of a worker process: its routers' subscribers, run until SIGTERM.

Streams and the upload bucket are declared by `connect_bus` (start order never matters), so
the broker only binds to them. On stop, FastStream stops fetching and waits up to
`PP_DRAIN_TIMEOUT_S` (its `graceful_timeout`, which for NATS defaults to none: no waiting at
all) for the commands in hand, which are then acked or nacked by their delivery policy.
"""

from __future__ import annotations

import asyncio
import logging

from faststream.nats import NatsBroker, NatsRouter
from faststream.nats.opentelemetry import NatsTelemetryMiddleware

from shared.bus.connection import nats_servers
from shared.config import Settings
from shared.telemetry.otel import setup_tracing


def make_broker(settings: Settings, name: str, *routers: NatsRouter) -> NatsBroker:
    provider = setup_tracing(name)
    broker = NatsBroker(
        nats_servers(settings),
        # Continues the trace of each message's `traceparent` header in a consume span.
        middlewares=[NatsTelemetryMiddleware(tracer_provider=provider)] if provider else (),
        name=name,
        graceful_timeout=settings.drain_timeout_s,
        max_reconnect_attempts=-1,
        reconnect_time_wait=0.5,
        connect_timeout=5,
        # One log line per message would drown the stage logs; failures are logged by the policy.
        log_level=logging.DEBUG,
    )
    for router in routers:
        broker.include_router(router)
    return broker


async def serve_routers(settings: Settings, name: str, stop: asyncio.Event, *routers: NatsRouter) -> None:
    """Consume with these routers until `stop`, then drain the work in hand and disconnect."""
    broker = make_broker(settings, name, *routers)
    await broker.start()
    try:
        await stop.wait()
    finally:
        await broker.stop()
