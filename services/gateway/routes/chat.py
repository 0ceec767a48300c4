"""Chat API: turns and resumes published to the bus and relayed back as SSE; history."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query

from services.gateway.attachments import MAX_TAGGED
from services.gateway.auth import TokenPrincipal, WorkspaceUser, rate_limited
from services.gateway.branching import head_of, last_turn_start, regenerated
from services.gateway.deps import Gateway, GatewayState, bus_up
from services.gateway.errors import ApiError, documented_errors, not_found
from services.gateway.relay import SSE_RESPONSES, Feed, follow_thread, relay
from services.gateway.replay import replay_stream
from services.gateway.sse import EventStream
from services.gateway.tenancy import ensure_user
from services.gateway.turns import (
    answer_or_422,
    check_documents,
    claim,
    open_turn,
    owned_thread,
    pending_interrupt,
    publish_turn,
    request_stop,
)
from shared.auth.tokens import Principal
from shared.contracts import ChatCommand, ResumeCommand
from shared.contracts.api import CancelOut, ChatRequest, HistoryOut, MessageOut, RegenerateRequest, ResumeRequest
from shared.db import conversations
from shared.db.conn import Conn
from shared.db.pool import tenant_tx
from shared.graph.branches import branch_history
from shared.graph.state import replayed_turn
from shared.telemetry.trace import TRACEPARENT, turn_traceparent

router = APIRouter(
    prefix="/v1", tags=["chat"], responses=documented_errors(400, 401, 403, 404, 409, 413, 422, 429, 503)
)

LIMITED = [Depends(bus_up), Depends(rate_limited)]


async def launch(gw: GatewayState, p: Principal, cmd: ChatCommand | ResumeCommand, kind: str) -> EventStream:
    """Publish the command and relay its events."""
    sub = await publish_turn(gw, p, cmd, kind)
    return stream(gw, sub, cmd.run_id, cmd.thread_id)


def stream(gw: GatewayState, sub: Feed, run_id: uuid.UUID, thread_id: uuid.UUID) -> EventStream:
    return EventStream(
        relay(follow_thread(gw.settings, sub, thread_id, run_id=run_id)),
        headers={
            "X-Thread-Id": str(thread_id),
            "X-Run-Id": str(run_id),
            # The trace of this turn, to look it up in a trace viewer.
            TRACEPARENT: turn_traceparent(),
        },
    )


@router.post("/chat", response_class=EventStream, responses=SSE_RESPONSES, dependencies=LIMITED)
async def chat(body: ChatRequest, p: WorkspaceUser, gw: Gateway) -> Any:
    """Start a turn. The SSE stream ends with exactly one terminal event."""
    run_id = uuid.uuid4()
    thread_id = body.thread_id or uuid.uuid4()
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        if body.thread_id is None:
            await ensure_user(conn, p)
            await conversations.create_conversation(conn, thread_id, p.tenant_id, p.user_id)
        elif await conversations.get_conversation(conn, thread_id, p.user_id) is None:
            raise not_found("thread")
        fork = None
        if body.replace_last_turn and body.thread_id:
            fork = await last_turn_start(conn, thread_id)
            body = await with_replaced_tags(gw, conn, body, thread_id)
        body = with_attachments(body)
        await check_documents(conn, body.tagged_doc_ids, body.tagged_set_ids, p.user_id)
        await open_turn(
            conn,
            gw,
            p,
            thread_id,
            run_id,
            body.message,
            tiptap_json=body.tiptap_json,
            tagged_doc_ids=[str(d) for d in body.tagged_doc_ids],
            **({"attachment_ids": [str(d) for d in body.attachment_ids]} if body.attachment_ids else {}),
        )
    cmd = ChatCommand(
        run_id=run_id,
        tenant_id=p.tenant_id,
        user_id=p.user_id,
        thread_id=thread_id,
        checkpoint_id=fork,
        **body.model_dump(exclude={"thread_id", "replace_last_turn"}),
    )
    return await launch(gw, p, cmd, "chat")


def with_attachments(body: ChatRequest) -> ChatRequest:
    """Attached documents are tagged for the turn too: at most 5 documents together (422 otherwise)."""
    if not body.attachment_ids:
        return body
    tags = list(dict.fromkeys([*body.tagged_doc_ids, *body.attachment_ids]))
    if len(tags) > MAX_TAGGED:
        reason = f"at most {MAX_TAGGED} documents per message, tagged and attached together ({len(tags)} given)"
        raise ApiError(422, "validation_error", f"attachment_ids: {reason}", {"field": "attachment_ids"})
    return body.model_copy(update={"tagged_doc_ids": tags})


async def with_replaced_tags(
    gw: GatewayState, conn: Conn, body: ChatRequest, thread_id: uuid.UUID
) -> ChatRequest:
    """An edited message that names no documents, sets or action keeps those of the turn it replaces."""
    if body.tagged_doc_ids or body.tagged_set_ids or body.action:
        return body
    head = await head_of(conn, thread_id)
    turn = (await regenerated(gw.checkpoints, conn, thread_id, head, "thread_id")).turn
    kept = {
        "tagged_doc_ids": turn.get("tagged_doc_ids") or [],
        "tagged_set_ids": turn.get("tagged_set_ids") or [],
        "action": turn.get("requested_action"),
    }
    return ChatRequest.model_validate({**body.model_dump(), **{k: v for k, v in kept.items() if v}})


@router.post("/chat/regenerate", response_class=EventStream, responses=SSE_RESPONSES, dependencies=LIMITED)
async def regenerate(body: RegenerateRequest, p: WorkspaceUser, gw: Gateway) -> Any:
    """Run the last turn of the thread's current branch again (its message, tags and action): a new
    answer on a new branch, streamed like a turn; 409 while a run holds the thread or before any turn."""
    await owned_thread(gw, p, body.thread_id)
    run_id = uuid.uuid4()
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        head = await head_of(conn, body.thread_id)
        again = await regenerated(gw.checkpoints, conn, body.thread_id, head, "thread_id")
        envelope = {"run_id": run_id, "tenant_id": p.tenant_id, "user_id": p.user_id, "thread_id": body.thread_id}
        cmd = replayed_turn(again.turn, **envelope, checkpoint_id=again.checkpoint_id)
        await check_documents(conn, cmd.tagged_doc_ids, cmd.tagged_set_ids, p.user_id)
        await open_turn(
            conn,
            gw,
            p,
            body.thread_id,
            run_id,
            cmd.message,
            tiptap_json=cmd.tiptap_json,
            tagged_doc_ids=[str(d) for d in cmd.tagged_doc_ids],
        )
    return await launch(gw, p, cmd, "chat")


@router.post("/chat/resume", response_class=EventStream, responses=SSE_RESPONSES, dependencies=LIMITED)
async def resume(body: ResumeRequest, p: WorkspaceUser, gw: Gateway) -> Any:
    """Answer the thread's pending PalAssist question; 409 when none is pending."""
    if body.resume_value.type == "human_answer":
        detail = "only a human agent answers an escalated ticket, through POST /v1/tickets/{id}/resolve"
        raise ApiError(403, "forbidden", detail)
    await owned_thread(gw, p, body.thread_id)
    pending = await pending_interrupt(gw, body.thread_id)
    if pending is None:
        raise ApiError(409, "no_pending_interrupt", "this thread has no question waiting for an answer")
    answer = answer_or_422(pending, body.resume_value, "resume_value")
    run_id = uuid.uuid4()
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        await claim(conn, gw, p, body.thread_id, run_id)
    cmd = ResumeCommand(
        run_id=run_id,
        tenant_id=p.tenant_id,
        user_id=p.user_id,
        thread_id=body.thread_id,
        resume_value=answer,
    )
    return await launch(gw, p, cmd, "resume")


@router.post("/threads/{thread_id}/cancel", status_code=202, response_model=CancelOut, dependencies=LIMITED)
async def cancel(thread_id: uuid.UUID, p: WorkspaceUser, gw: Gateway) -> CancelOut:
    """Stop the thread's running turn. The workers stop at once (mid-node, mid-stream); the run's
    stream ends with a `response` event carrying what was said so far and `stopped: true`, and the
    thread takes the next message. 409 when no turn is running."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        if await conversations.get_conversation(conn, thread_id, p.user_id) is None:
            raise not_found("thread")
        run_id = await conversations.running_run(conn, thread_id, p.user_id)
    if run_id is None:
        raise ApiError(409, "not_running", "no turn is running on this thread")
    await request_stop(gw, p, thread_id, run_id)
    return CancelOut(thread_id=thread_id, run_id=run_id)


@router.get(
    "/threads/{thread_id}/events",
    response_class=EventStream,
    responses=SSE_RESPONSES,
)
async def thread_events(
    thread_id: uuid.UUID,
    p: TokenPrincipal,
    gw: Gateway,
    last_event_id: Annotated[int | None, Header(alias="Last-Event-ID", ge=0)] = None,
    after: Annotated[int | None, Query(ge=0, description="Same as Last-Event-ID, for EventSource-less clients")] = None,
) -> Any:
    """Replay a thread's events after `Last-Event-ID` and follow them to the next terminal event; on a
    thread with no run in progress the stream ends once the replay has caught up."""
    # The account and thread checks of every stream opened in the same moment share one query.
    p = await gw.streams.open_thread(p, thread_id)
    start = last_event_id if last_event_id is not None else after
    sub = await gw.relay.subscribe(gw.bus.subjects.evt_thread(thread_id), after_seq=start if start is not None else 0)
    return replay_stream(gw, p, sub, thread_id)


@router.get("/chat/history/{thread_id}", response_model=HistoryOut)
async def history(
    thread_id: uuid.UUID,
    p: WorkspaceUser,
    gw: Gateway,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> HistoryOut:
    thread = await owned_thread(gw, p, thread_id)
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        rows = await branch_history(conn, thread_id, limit)  # the current branch (a regenerate forks)
    return HistoryOut(
        thread_id=thread_id,
        title=thread.get("title"),
        messages=[MessageOut(**row) for row in rows],
        pending_interrupt=await pending_interrupt(gw, thread_id),
    )
