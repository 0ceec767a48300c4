"""Serving a worker's routers on the process's broker (`Bus.broker`, connected by `connect_bus`) until SIGTERM.

Streams and the upload bucket are declared by `connect_bus` (start order never matters), so the
subscribers only bind to them. On stop, the routers' subscribers stop fetching and FastStream waits
up to `PP_DRAIN_TIMEOUT_S` (the broker's `graceful_timeout`) for the commands in hand, which are then
acked or nacked by their delivery policy. The connection stays open for what the process still
publishes; `Bus.close` drains it.
"""

from __future__ import annotations

import asyncio

from faststream.nats import NatsRouter
from faststream.nats.opentelemetry import NatsTelemetryMiddleware

from shared.bus.connection import Bus
from shared.telemetry.otel import setup_tracing


def include_routers(bus: Bus, *routers: NatsRouter) -> None:
    """Put the routers on the bus's broker. With tracing on, each consumed message continues the
    trace of its `traceparent` header in a consume span (outermost, before the routers' own
    middleware); publishes are left to `shared.bus.publish`, which sets the header itself."""
    provider = setup_tracing(bus.name)
    telemetry = [NatsTelemetryMiddleware(tracer_provider=provider)] if provider else []
    for router in routers:
        bus.broker.include_router(router, middlewares=telemetry)


async def serve_routers(bus: Bus, stop: asyncio.Event, *routers: NatsRouter) -> None:
    """Consume with these routers until `stop`, then finish (or hand back) the work in hand."""
    include_routers(bus, *routers)
    # These routers' subscribers only: `broker.start()` would start again every subscriber on the
    # broker, among them those another serve_routers of this process has already stopped.
    subscribers = [subscriber for router in routers for subscriber in router.subscribers]
    try:
        for subscriber in subscribers:
            await subscriber.start()
        await stop.wait()
    finally:
        for subscriber in subscribers:
            await subscriber.stop()
