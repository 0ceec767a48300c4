"""The tenant's ticket feed (`pp.evt.tickets.<tenant_id>`, SSE `GET /v1/tickets/events`).

Agents keep a live queue from it: a `snapshot` of the waiting tickets when they connect, then a
`ticket` event with the ticket's whole current row whenever it changes status. Carrying the row
(not a delta) makes events idempotent: a duplicate or late one only restates the truth.
"""

from __future__ import annotations

from typing import Literal

from shared.contracts.api import TicketOut
from shared.contracts.common import Contract


class TicketChanged(Contract):
    """A ticket entered or left the human queue (escalated, resolved, reopened)."""

    type: Literal["ticket"] = "ticket"
    ticket: TicketOut


class TicketSnapshot(Contract):
    """The first event of every feed connection: every ticket waiting for a human, oldest first."""

    type: Literal["snapshot"] = "snapshot"
    tickets: list[TicketOut]
