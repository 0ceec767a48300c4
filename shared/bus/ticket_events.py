"""Announcing a ticket's new state on its tenant's feed, so agents' inboxes update without reload."""

from __future__ import annotations

import uuid
from typing import Any

from shared.bus.connection import Bus
from shared.bus.publish import publish
from shared.contracts.api import TicketOut
from shared.contracts.tickets import TicketChanged


async def announce_ticket(bus: Bus, tenant_id: uuid.UUID | str, ticket: dict[str, Any]) -> None:
    """Publish the ticket's current row. The de-duplication id is the row's state, so a redelivered
    stage that announces the same change again is dropped by the server."""
    event = TicketChanged(ticket=TicketOut(**ticket))
    msg_id = f"ticket:{event.ticket.id}:{event.ticket.status}:{event.ticket.updated_at.isoformat()}"
    await publish(bus, bus.subjects.evt_tickets(tenant_id), event, msg_id=msg_id)
