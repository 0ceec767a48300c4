"""Human agents' ticket queue (docs/architecture.md §8): list, read, and resolve an escalated ticket.

Resolving publishes `pp.cmd.resume` with the agent's answer: the escalated run continues in its
inquire worker, the answer becomes the ticket's assistant message (marked as from a human) and a
`response` event on the thread, live for a connected customer and replayable for a returning one.
"""

from __future__ import annotations

import logging
import uuid
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query

from services.gateway.auth import SupportAgent
from services.gateway.deps import Gateway, bus_up
from services.gateway.errors import ApiError, documented_errors, not_found
from services.gateway.metrics import TURNS
from services.gateway.relay import SSE_RESPONSES
from services.gateway.sse import EventStream
from services.gateway.ticket_feed import ticket_feed
from shared.bus.publish import publish
from shared.bus.ticket_events import announce_ticket
from shared.contracts import ResumeCommand, ResumeValue
from shared.contracts.api import MessageOut, TicketDetail, TicketList, TicketOut, TicketResolve
from shared.db import audit, conversations, support
from shared.db.pool import tenant_tx

log = logging.getLogger(__name__)

router = APIRouter(
    prefix="/v1/tickets", tags=["tickets"], responses=documented_errors(400, 401, 403, 404, 409, 413, 422, 503)
)


@router.get("", response_model=TicketList)
async def list_tickets(
    p: SupportAgent,
    gw: Gateway,
    status: Literal["open", "pending_human", "resolved"] | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> TicketList:
    """The tenant's tickets, longest waiting first; `status=pending_human` is the agents' queue."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        rows = await support.list_tickets(conn, status, limit)
    return TicketList(items=[TicketOut(**row) for row in rows])


@router.get("/events", response_class=EventStream, responses=SSE_RESPONSES, dependencies=[Depends(bus_up)])
async def events(p: SupportAgent, gw: Gateway) -> EventStream:
    """The live queue: a `snapshot` of the tickets waiting for a human, then a `ticket` event (the
    whole ticket) whenever one of the tenant's tickets is escalated or resolved. Only the caller's
    tenant is ever streamed; the stream stays open until the client leaves."""
    return EventStream(ticket_feed(gw, p))


@router.get("/{ticket_id}", response_model=TicketDetail)
async def get_ticket(ticket_id: uuid.UUID, p: SupportAgent, gw: Gateway) -> TicketDetail:
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        ticket = await support.get_ticket(conn, ticket_id)
        if ticket is None:
            raise not_found("ticket")
        rows = await conversations.history(conn, ticket_id, 500)
    return TicketDetail(ticket=TicketOut(**ticket), messages=[MessageOut(**row) for row in rows])


@router.post("/{ticket_id}/resolve", status_code=202, response_model=TicketOut, dependencies=[Depends(bus_up)])
async def resolve(ticket_id: uuid.UUID, body: TicketResolve, p: SupportAgent, gw: Gateway) -> TicketOut:
    """Answer an escalated ticket; 409 unless it is waiting for a human."""
    run_id = uuid.uuid4()
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        ticket = await support.get_ticket(conn, ticket_id)
        if ticket is None:
            raise not_found("ticket")
        resolved = await support.resolve_ticket(conn, ticket_id, body.answer, p.sub)
        if resolved is None:
            raise ApiError(409, "not_waiting", f"ticket {ticket['number']} is {ticket['status']}, not pending_human")
        # The resume run holds the customer's thread until its answer is out, so a customer's open
        # event stream keeps waiting for it instead of ending while the worker is still writing.
        claimed = await conversations.claim_thread(
            conn, ticket_id, ticket["customer_sub"], run_id, gw.settings.turn_timeout_s
        )
        if not claimed:
            raise ApiError(409, "ticket_busy", f"ticket {ticket['number']} is still being escalated; try again")
        await audit.record(conn, p.tenant_id, p.user_id, "ticket.resolve", str(ticket_id), {"run_id": str(run_id)})
    # The run belongs to the customer's thread: the resume acts as that session's user.
    cmd = ResumeCommand(
        run_id=run_id,
        tenant_id=p.tenant_id,
        user_id=ticket["customer_sub"],
        thread_id=ticket_id,
        resume_value=ResumeValue(type="human_answer", value=body.answer),
    )
    try:
        await publish(gw.bus, gw.bus.subjects.cmd_resume, cmd, msg_id=str(run_id))
        TURNS.labels("ticket_resolve").inc()
    except Exception:
        async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
            await support.reopen_escalation(conn, ticket_id)
            await conversations.release_thread(conn, ticket_id, run_id)
        raise
    try:
        await announce_ticket(gw.bus, p.tenant_id, resolved)
    except Exception:
        # The answer is on its way; inboxes catch up from their next snapshot.
        log.warning("could not announce the resolution of ticket %s", ticket_id, exc_info=True)
    return TicketOut(**resolved)
