"""Publishing through the process's FastStream broker: validated models to JetStream with trace context
and de-duplication ids (`publish`), and the core-NATS stop broadcast (`broadcast`)."""

from __future__ import annotations

import asyncio
import logging
import time

from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js.api import PubAck
from nats.js.errors import NoStreamResponseError
from pydantic import BaseModel

from shared.bus.connection import JS_TIMEOUT_S, Bus
from shared.telemetry.trace import TRACEPARENT, outgoing_traceparent

log = logging.getLogger(__name__)

MSG_ID = "Nats-Msg-Id"
# A clustered stream answers nothing while it elects a new leader after losing a node (a few
# seconds, tests/e2e/test_cluster_faults.py); a publish that failed then is tried again for this
# long. Only with a msg_id: the stream's duplicate window makes the retry a no-op if the first
# attempt was stored after all.
RETRY_FOR_S = 10.0
TRANSIENT = (NoStreamResponseError, NoRespondersError, NatsTimeoutError, asyncio.TimeoutError)


def encode(model: BaseModel) -> bytes:
    return model.model_dump_json(exclude_none=False).encode()


async def publish(bus: Bus, subject: str, model: BaseModel, *, msg_id: str | None = None) -> PubAck:
    """Publish to JetStream; `msg_id` makes a re-publish within the window a no-op, and so lets a
    publish that failed during a leader election be retried."""
    headers = {TRACEPARENT: outgoing_traceparent()}
    if not msg_id:
        return await publish_raw(bus, subject, encode(model), headers)
    headers[MSG_ID] = msg_id
    deadline = time.monotonic() + RETRY_FOR_S
    delay = 0.1
    while True:
        try:
            return await publish_raw(bus, subject, encode(model), headers)
        except TRANSIENT as exc:
            if time.monotonic() + delay > deadline:
                raise
            log.info("publish to %s failed (%r); retrying in %.1fs", subject, exc, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)


async def publish_raw(bus: Bus, subject: str, data: bytes, headers: dict[str, str]) -> PubAck:
    """One JetStream publish of bytes as they are (a dead letter keeps the command's own body)."""
    stream = bus.subjects.stream_of(subject)
    return await bus.broker.publish(data, subject, headers=headers, stream=stream, timeout=JS_TIMEOUT_S)


async def broadcast(bus: Bus, subject: str, model: BaseModel) -> None:
    """A core NATS publish that every subscriber hears and nothing stores (the stop signal)."""
    await bus.broker.publish(encode(model), subject)
