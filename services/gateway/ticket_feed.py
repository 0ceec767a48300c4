"""The agents' live queue as Server-Sent Events: a snapshot, then every change of a ticket.

The feed subscribes to the tenant's ticket subject *before* it reads the snapshot, so a ticket
that changes in between arrives as an event after the snapshot (events carry the whole row, so
restating a state the snapshot already had is harmless). Reconnecting simply starts over with a
fresh snapshot, which is why the feed needs no Last-Event-ID.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from nats.errors import TimeoutError as NatsTimeoutError

from services.gateway.deps import GatewayState
from services.gateway.metrics import SSE_OPEN
from services.gateway.relay import next_message, read_event, sse_item
from shared.auth.tokens import Principal
from shared.contracts.api import TicketOut
from shared.contracts.tickets import TicketChanged, TicketSnapshot
from shared.db import support
from shared.db.pool import tenant_tx

# Most tickets an inbox is sent at connect time; a longer queue is read page by page via GET /v1/tickets.
SNAPSHOT_LIMIT = 500


async def ticket_feed(gw: GatewayState, p: Principal) -> AsyncGenerator[dict[str, str] | None, None]:
    """Yield the snapshot and then the tenant's ticket events until the client goes away; `None`
    after every keep-alive interval without one."""
    sub = await gw.relay.subscribe(gw.bus.subjects.evt_tickets(p.tenant_id))
    SSE_OPEN.inc()
    try:
        async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
            rows = await support.list_tickets(conn, "pending_human", SNAPSHOT_LIMIT)
        snapshot = TicketSnapshot(tickets=[TicketOut(**row) for row in rows]).model_dump(mode="json")
        yield sse_item(None, snapshot.pop("type"), snapshot)
        while True:
            try:
                msg = await next_message(sub, gw.settings.sse_keepalive_s)
            except (TimeoutError, NatsTimeoutError):
                yield None
                continue
            data = read_event(msg.data, TicketChanged.model_validate_json)
            if data is None:
                continue
            yield sse_item(msg.metadata.sequence.stream, data.pop("type", "ticket"), data)
    finally:
        SSE_OPEN.dec()
        await sub.unsubscribe()
