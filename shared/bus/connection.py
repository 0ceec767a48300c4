"""Connecting to NATS and creating streams and the upload bucket idempotently.

Whichever process starts first creates them; later ones find them (or update them when the
configuration changed), so start order never matters.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import nats
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.api import (
    DiscardPolicy,
    ObjectStoreConfig,
    RetentionPolicy,
    StorageType,
    StreamConfig,
)
from nats.js.errors import BadRequestError, NotFoundError
from nats.js.object_store import ObjectStore

from shared.bus.subjects import Subjects
from shared.config import Settings

log = logging.getLogger(__name__)

DUPLICATE_WINDOW_S = 120.0


@dataclass
class Bus:
    nc: Client
    js: JetStreamContext
    subjects: Subjects

    async def uploads(self) -> ObjectStore:
        return await self.js.object_store(self.subjects.uploads_bucket)

    async def close(self) -> None:
        if self.nc.is_connected:
            await self.nc.drain()


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


async def connect_bus(settings: Settings, *, name: str, ensure: bool = True) -> Bus:
    """Connect, then make sure streams and the upload bucket exist."""
    nc = await nats.connect(
        nats_servers(settings),
        name=name,
        max_reconnect_attempts=-1,
        reconnect_time_wait=0.5,
        connect_timeout=5,
    )
    js = nc.jetstream(timeout=10)
    subjects = Subjects(settings.subject_prefix)
    if ensure:
        for config in stream_configs(subjects, settings):
            await ensure_stream(js, config)
        await ensure_bucket(js, subjects.uploads_bucket, settings.stream_replicas)
    return Bus(nc=nc, js=js, subjects=subjects)
