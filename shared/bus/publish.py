"""Publishing validated models with trace context and JetStream de-duplication ids."""

from __future__ import annotations

from nats.js.api import PubAck
from pydantic import BaseModel

from shared.bus.connection import Bus
from shared.telemetry.trace import TRACEPARENT, outgoing_traceparent

MSG_ID = "Nats-Msg-Id"


def encode(model: BaseModel) -> bytes:
    return model.model_dump_json(exclude_none=False).encode()


async def publish(bus: Bus, subject: str, model: BaseModel, *, msg_id: str | None = None) -> PubAck:
    """Publish to JetStream; `msg_id` makes a re-publish within the window a no-op."""
    headers = {TRACEPARENT: outgoing_traceparent()}
    if msg_id:
        headers[MSG_ID] = msg_id
    return await bus.js.publish(subject, encode(model), headers=headers)
