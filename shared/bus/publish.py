"""Publishing validated models with trace context and JetStream de-duplication ids."""

from __future__ import annotations

import asyncio
import logging
import time

from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js.api import PubAck
from nats.js.errors import NoStreamResponseError
from pydantic import BaseModel

from shared.bus.connection import Bus
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
        return await bus.js.publish(subject, encode(model), headers=headers)
    headers[MSG_ID] = msg_id
    deadline = time.monotonic() + RETRY_FOR_S
    delay = 0.1
    while True:
        try:
            return await bus.js.publish(subject, encode(model), headers=headers)
        except TRANSIENT as exc:
            if time.monotonic() + delay > deadline:
                raise
            log.info("publish to %s failed (%r); retrying in %.1fs", subject, exc, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)
