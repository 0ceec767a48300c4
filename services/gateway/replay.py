"""A thread's stream from a point on (`Last-Event-ID`), shared by the ordinary route
(`GET /v1/threads/{thread_id}/events`, routes/chat.py) and its fast path (thread_streams.py)."""

from __future__ import annotations

import uuid

from services.gateway.deps import GatewayState
from services.gateway.relay import Feed, follow_thread, relay
from services.gateway.sse import EventStream
from shared.auth.tokens import Principal


def replay_stream(gw: GatewayState, p: Principal, sub: Feed, thread_id: uuid.UUID) -> EventStream:
    """Replayed events up to the next terminal one; caught up on an idle thread, the stream ends."""

    async def still_active() -> bool:
        return await gw.streams.thread_active(p.tenant_id, thread_id)

    return EventStream(relay(follow_thread(gw.settings, sub, thread_id, still_active=still_active)))
