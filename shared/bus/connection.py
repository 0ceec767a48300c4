"""One NATS connection per process, FastStream's, and the streams and upload bucket made idempotently.

`Bus` wraps the process's FastStream `NatsBroker`: consuming (`serve_routers`), publishing
(`publish`, `broadcast`) and request-reply (`shared.bus.rpc.request`) go through the broker, and
what FastStream has no API for (stream and consumer management, the uploads object store, the
gateway's ordered consumers) uses the nats-py client and JetStream context that the broker holds,
on the same connection (docs/bus-stack.md).

Whichever process starts first creates the streams and bucket; later ones find them (or update them
when the configuration changed), so start order never matters.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from faststream.nats import NatsBroker
from nats.aio.client import Client
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js import JetStreamContext
from nats.js.api import (
    DiscardPolicy,
    ObjectStoreConfig,
    RetentionPolicy,
    StorageType,
    StreamConfig,
)
from nats.js.errors import BadRequestError, NotFoundError, ServiceUnavailableError
from nats.js.object_store import ObjectStore

from shared.bus.subjects import Subjects
from shared.config import Settings

log = logging.getLogger(__name__)

DUPLICATE_WINDOW_S = 120.0


# nats-py's default of 5 s; FastStream's own publish default (0.5 s) would fail publishes that a
# loaded server or a stream leader election delays.
JS_TIMEOUT_S = 10.0


@dataclass
class Bus:
    """The process's broker (connected) and the names of everything on the bus."""

    broker: NatsBroker
    subjects: Subjects
    name: str = "policypal"

    @property
    def nc(self) -> Client:
        """The broker's nats-py connection."""
        return self.broker.connection

    @property
    def js(self) -> JetStreamContext:
        """The broker's JetStream context (`JS_TIMEOUT_S`)."""
        return self.broker.config.connection_state.stream

    async def uploads(self) -> ObjectStore:
        return await self.js.object_store(self.subjects.uploads_bucket)

    async def close(self) -> None:
        """Stop whatever still consumes, flush what was published, and drain the connection. Draining
        needs the server: a connection that is down (reconnecting) is closed as it is."""
        if not self.broker.config.connection_state:
            return  # closed already
        if self.nc.is_connected:
            await self.broker.stop()
        else:
            await self.nc.close()


def stream_configs(subjects: Subjects, settings: Settings) -> list[StreamConfig]:
    return [
        StreamConfig(
            name=subjects.commands_stream,
            subjects=[subjects.cmd_all],
            retention=RetentionPolicy.WORK_QUEUE,
            storage=StorageType.FILE,
            duplicate_window=DUPLICATE_WINDOW_S,
            num_replicas=settings.stream_replicas,
        ),
        StreamConfig(
            name=subjects.events_stream,
            subjects=[subjects.evt_all],
            retention=RetentionPolicy.LIMITS,
            storage=StorageType.FILE,
            max_age=float(settings.events_max_age_s),
            discard=DiscardPolicy.OLD,
            duplicate_window=DUPLICATE_WINDOW_S,
            num_replicas=settings.stream_replicas,
        ),
        StreamConfig(
            name=subjects.dlq_stream,
            subjects=[subjects.dlq_all],
            retention=RetentionPolicy.LIMITS,
            storage=StorageType.FILE,
            max_age=float(7 * 24 * 3600),
            num_replicas=settings.stream_replicas,
        ),
    ]


async def ensure_stream(js: JetStreamContext, config: StreamConfig) -> None:
    if config.name is None:
        raise ValueError(f"a stream needs a name to be ensured: {config}")
    try:
        await js.stream_info(config.name)
    except NotFoundError:
        try:
            await js.add_stream(config)
            return
        except BadRequestError:
            log.debug("stream %s created concurrently", config.name)
    await js.update_stream(config)


async def ensure_bucket(js: JetStreamContext, bucket: str, replicas: int = 1) -> None:
    try:
        await js.object_store(bucket)
    except NotFoundError:
        try:
            await js.create_object_store(bucket, ObjectStoreConfig(storage=StorageType.FILE, replicas=replicas))
        except BadRequestError:
            log.debug("bucket %s created concurrently", bucket)


def nats_servers(settings: Settings) -> list[str]:
    if not settings.nats_url:
        raise RuntimeError("PP_NATS_URL is not set (`policypal up` sets it for its children)")
    return [url.strip() for url in settings.nats_url.split(",") if url.strip()]


def make_broker(settings: Settings, name: str) -> NatsBroker:
    return NatsBroker(
        nats_servers(settings),
        name=name,
        # On stop, FastStream waits this long for the commands in hand (for NATS its default is none).
        graceful_timeout=settings.drain_timeout_s,
        max_reconnect_attempts=-1,
        # Seconds, slept as given: nats-py (and FastStream after it) annotate it as int.
        reconnect_time_wait=0.5,  # type: ignore[arg-type]
        connect_timeout=5,
        js_options={"timeout": JS_TIMEOUT_S},
        # One log line per message would drown the stage logs; failures are logged by the policy.
        log_level=logging.DEBUG,
    )


# A cluster that has just started accepts connections before it has elected its JetStream meta
# leader: for a few seconds stream requests time out or answer 503. A worker started beside it (the
# compose stack, a rolling restart) waits that out instead of exiting with a traceback and restarting.
SETUP_PATIENCE_S = 60.0


async def ensure_streams(bus: Bus, settings: Settings) -> None:
    """The streams and the upload bucket, created or updated, retried while JetStream is not ready."""
    deadline, delay = time.monotonic() + SETUP_PATIENCE_S, 0.5
    while True:
        try:
            for config in stream_configs(bus.subjects, settings):
                await ensure_stream(bus.js, config)
            await ensure_bucket(bus.js, bus.subjects.uploads_bucket, settings.stream_replicas)
            return
        except (NatsTimeoutError, ServiceUnavailableError) as exc:
            if time.monotonic() + delay > deadline:
                raise
            log.warning("JetStream is not ready yet (%s); setting up its streams again in %.1f s", exc, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)


async def connect_bus(settings: Settings, *, name: str, ensure: bool = True) -> Bus:
    """Connect the process's broker, then make sure streams and the upload bucket exist."""
    broker = make_broker(settings, name)
    await broker.connect()
    bus = Bus(broker=broker, subjects=Subjects(settings.subject_prefix), name=name)
    if ensure:
        await ensure_streams(bus, settings)
    return bus
