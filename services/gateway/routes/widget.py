"""The support widget's API (docs/architecture.md §8): handshake, chat over SSE, history and event replay.

Every call after the handshake carries the customer session token, which names one ticket;
a customer can only ever reach that ticket's conversation.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query

from services.gateway.auth import WidgetCustomer, rate_limited
from services.gateway.deps import Gateway, bus_up
from services.gateway.errors import ApiError, documented_errors, not_found
from services.gateway.ratelimit import enforce
from services.gateway.relay import SSE_RESPONSES
from services.gateway.routes.chat import launch, replay_stream
from services.gateway.sse import EventStream
from services.gateway.turns import open_turn
from shared.auth.tokens import Customer, mint_token
from shared.contracts import ChatCommand
from shared.contracts.api import HistoryOut, MessageOut, WidgetChatRequest, WidgetInit, WidgetSession, check_origin
from shared.db import conversations, support, tenants
from shared.db.conn import Conn
from shared.db.pool import tenant_tx

router = APIRouter(
    prefix="/v1/widget", tags=["widget"], responses=documented_errors(400, 401, 403, 404, 409, 413, 422, 429, 503)
)


def browser_origin(origin: str | None) -> str:
    if not origin:
        raise ApiError(403, "origin_required", "the widget must be loaded from a web page (Origin header missing)")
    try:
        return check_origin(origin)
    except ValueError as exc:
        raise ApiError(403, "origin_not_allowed", str(exc)) from exc


@router.post("/init", status_code=201, response_model=WidgetSession)
async def init(
    body: WidgetInit,
    gw: Gateway,
    origin: Annotated[
        str | None, Header(description="Set by the browser; must be one of the tenant's domains.")
    ] = None,
) -> WidgetSession:
    """Handshake: the page's origin must be an allowed domain of the tenant; opens a ticket and returns
    the customer's session token. An unknown tenant answers like a foreign origin (no existence leak).
    Anonymous, so limited per page origin: a script cannot open tickets without bound."""
    page = browser_origin(origin)
    enforce(gw.limits.widget_init, page, "origin")
    sub, ticket_id = f"anon_{uuid.uuid4()}", uuid.uuid4()
    async with tenant_tx(gw.db, body.tenant_id, sub) as conn:
        domains = await tenants.allowed_domains(conn, body.tenant_id)
        if domains is None or page not in domains:
            raise ApiError(403, "origin_not_allowed", f"{page} may not embed this tenant's widget")
        await conversations.create_conversation(conn, ticket_id, body.tenant_id, sub, kind="support")
        ticket = await support.create_ticket(conn, ticket_id, body.tenant_id, sub, page)
    ttl = gw.settings.widget_token_ttl_s
    token = mint_token(
        gw.settings.jwt_secret(), tenant_id=body.tenant_id, sub=sub, role="customer", ttl_s=ttl, ticket_id=ticket_id
    )
    return WidgetSession(token=token, ticket_id=ticket_id, ticket_number=ticket["number"], expires_in=ttl)


async def own_ticket(conn: Conn, p: Customer) -> dict[str, Any]:
    ticket = await support.get_ticket(conn, p.ticket_id)
    if ticket is None or ticket["customer_sub"] != p.sub:
        raise not_found("ticket")
    return ticket


@router.post(
    "/chat",
    response_class=EventStream,
    responses=SSE_RESPONSES,
    dependencies=[Depends(bus_up), Depends(rate_limited)],
)
async def chat(body: WidgetChatRequest, p: WidgetCustomer, gw: Gateway) -> Any:
    """Ask a question on the session's ticket; the SSE stream ends with a `response` or an `escalation`."""
    run_id, thread_id = uuid.uuid4(), p.ticket_id
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        ticket = await own_ticket(conn, p)
        if ticket["status"] == "pending_human":
            raise ApiError(409, "waiting_for_agent", "a human agent is preparing the answer to your last question")
        await support.reopen_ticket(conn, thread_id)
        await open_turn(conn, gw, p, thread_id, run_id, body.message)
    cmd = ChatCommand(
        run_id=run_id, tenant_id=p.tenant_id, user_id=p.user_id, thread_id=thread_id, message=body.message
    )
    return await launch(gw, p, cmd, "widget")


@router.get("/history", response_model=HistoryOut)
async def history(
    p: WidgetCustomer,
    gw: Gateway,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> HistoryOut:
    """The ticket's conversation as the widget shows it (user, assistant and human-agent messages)."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        await own_ticket(conn, p)
        rows = await conversations.history(conn, p.ticket_id, limit)
    return HistoryOut(thread_id=p.ticket_id, messages=[MessageOut(**row) for row in rows])


@router.get("/events", response_class=EventStream, responses=SSE_RESPONSES)
async def events(
    p: WidgetCustomer,
    gw: Gateway,
    last_event_id: Annotated[int | None, Header(alias="Last-Event-ID", ge=0)] = None,
    after: Annotated[int | None, Query(ge=0, description="Same as Last-Event-ID")] = None,
) -> Any:
    """Replay the ticket's events after `Last-Event-ID` and follow them to the next terminal event:
    a customer who reconnects after an escalation receives the human agent's answer here (the stream
    stays open while the ticket waits for a human, and ends once caught up on an idle ticket)."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        await own_ticket(conn, p)
    start = last_event_id if last_event_id is not None else after
    sub = await gw.relay.subscribe(gw.bus.subjects.evt_thread(p.ticket_id), after_seq=start or 0)
    return replay_stream(gw, p, sub, p.ticket_id)
