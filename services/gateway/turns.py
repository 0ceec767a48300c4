"""Starting turns from the gateway, shared by `/v1/chat` and the LangGraph surface (`/lg`): thread
ownership, tagged-document checks, the thread claim, publishing the command after subscribing to
the thread's events, and reading the pending PalAssist question from the checkpoint."""

from __future__ import annotations

import uuid
from typing import Any

from services.gateway.deps import GatewayState
from services.gateway.errors import ApiError, not_found
from services.gateway.metrics import TURNS
from services.gateway.relay import Feed
from shared.auth.tokens import Principal
from shared.bus.publish import broadcast, publish
from shared.contracts import ChatCommand, InterruptEvent, Question, ResumeCommand, ResumeValue, StopCommand
from shared.contracts.answers import AnswerError, checked_answer
from shared.db import conversations
from shared.db import documents as docs
from shared.db.conn import Conn
from shared.db.pool import tenant_tx
from shared.graph.runner import thread_config

THREAD_BUSY = "a turn is already running on this thread; wait for its answer"


async def pending_interrupt(
    gw: GatewayState, thread_id: uuid.UUID, run_id: uuid.UUID | None = None
) -> InterruptEvent | None:
    snapshot = await gw.graph_view.aget_state(thread_config(str(thread_id)))
    for task in snapshot.tasks:
        for pending in task.interrupts:
            return InterruptEvent(
                thread_id=thread_id, run_id=run_id or uuid.UUID(snapshot.values.get("run_id")), **dict(pending.value)
            )
    return None


def answer_or_422(question: Question, answer: ResumeValue, field: str) -> ResumeValue:
    """The answer in its canonical shape; 422 naming the field (`field` is where the client put the
    answer) when it does not fit the pending question."""
    try:
        return checked_answer(question, answer)
    except AnswerError as exc:
        where = f"{field}.{exc.field}" if field else exc.field
        raise ApiError(422, "validation_error", f"{where}: {exc.reason}", {"field": where}) from None


async def check_documents(conn: Conn, doc_ids: list[uuid.UUID], set_ids: list[uuid.UUID], user_id: str) -> None:
    """404 naming the first tagged document or set the caller cannot see."""
    if doc_ids:
        found = {row["id"] for row in await docs.documents_by_ids(conn, doc_ids)}
        missing = [str(d) for d in doc_ids if d not in found]
        if missing:
            raise ApiError(404, "not_found", f"document {missing[0]} not found", {"document_ids": missing})
    for set_id in set_ids:
        if not await docs.owns_set(conn, set_id, user_id):
            raise not_found(f"set {set_id}")


async def claim(conn: Conn, gw: GatewayState, p: Principal, thread_id: uuid.UUID, run_id: uuid.UUID) -> None:
    if not await conversations.claim_thread(conn, thread_id, p.user_id, run_id, gw.settings.turn_timeout_s):
        raise ApiError(409, "thread_busy", THREAD_BUSY)


async def abandon(gw: GatewayState, p: Principal, sub: Feed, thread_id: uuid.UUID, run_id: uuid.UUID) -> None:
    """The command never reached the bus: free the thread and the subscription."""
    await sub.unsubscribe()
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        await conversations.release_thread(conn, thread_id, run_id)


async def owned_thread(gw: GatewayState, p: Principal, thread_id: uuid.UUID) -> dict[str, Any]:
    """The thread if it is the caller's; 404 otherwise (another tenant's or user's thread does not exist)."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        row = await conversations.get_conversation(conn, thread_id, p.user_id)
    if row is None:
        raise not_found("thread")
    return row


async def open_turn(
    conn: Conn, gw: GatewayState, p: Principal, thread_id: uuid.UUID, run_id: uuid.UUID, message: str, **metadata: Any
) -> None:
    """Claim the thread and write the user's message; 409 while another run holds the thread."""
    started = await conversations.start_turn(
        conn,
        thread_id=thread_id,
        tenant_id=p.tenant_id,
        user_id=p.user_id,
        run_id=run_id,
        message=message,
        stale_after_s=gw.settings.turn_timeout_s,
        metadata=metadata,
    )
    if not started:
        raise ApiError(409, "thread_busy", THREAD_BUSY)


async def publish_turn(gw: GatewayState, p: Principal, cmd: ChatCommand | ResumeCommand, kind: str) -> Feed:
    """Subscribe to the thread (from now on, so nothing is missed), then publish the command; a command
    that never reaches the bus frees the thread again. Returns the subscription."""
    subject = gw.bus.subjects.cmd_chat if isinstance(cmd, ChatCommand) else gw.bus.subjects.cmd_resume
    sub = await gw.relay.subscribe(gw.bus.subjects.evt_thread(cmd.thread_id))
    try:
        await publish(gw.bus, subject, cmd, msg_id=str(cmd.run_id))
        TURNS.labels(kind).inc()
    except Exception:
        await abandon(gw, p, sub, cmd.thread_id, cmd.run_id)
        raise
    return sub


async def request_stop(gw: GatewayState, p: Principal, thread_id: uuid.UUID, run_id: uuid.UUID) -> None:
    """Stop a running turn: recorded first (a stage that starts later still sees it), then broadcast to
    the workers, which stop at once and end the run with what was said so far (`stopped: true`)."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        await conversations.record_stage(
            conn,
            run_id=run_id,
            stage=conversations.STOP_STAGE,
            tenant_id=p.tenant_id,
            thread_id=thread_id,
            outcome={"by": p.user_id},
        )
    stop = StopCommand(run_id=run_id, tenant_id=p.tenant_id, user_id=p.user_id, thread_id=thread_id)
    await broadcast(gw.bus, gw.bus.subjects.ctl_stop, stop)
