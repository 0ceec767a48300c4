"""`/lg/threads/{id}/runs…`: runs started on the bus, streamed and joined from `PP_EVENTS`.

A run is one PolicyPal turn (input) or resume (`command.resume`). The gateway claims the thread,
records the run, publishes the command and relays the run's events translated by `RunStream`.
Every stream is resumable for the `PP_EVENTS` retention, whatever `stream_resumable` says: the
events are in JetStream already, and the SSE ids are their sequence numbers. Following a run lives
in following.py, the double-texting strategies and stopping in multitask.py.
"""

from __future__ import annotations

import json
import uuid
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Query, Response
from langgraph.types import StateSnapshot
from sse_starlette.sse import EventSourceResponse

from services.gateway.branching import known_tree
from services.gateway.deps import Gateway, GatewayState, bus_up
from services.gateway.errors import ApiError, not_found
from services.gateway.relay import SSE_RESPONSES, Feed
from services.gateway.routes.langgraph.bodies import JsonBodyRoute
from services.gateway.routes.langgraph.common import (
    ASSISTANT_ID,
    check_assistant,
    interrupts_of,
    snapshot,
    thread_row,
)
from services.gateway.routes.langgraph.deps import LgUser, lg_rate_limited
from services.gateway.routes.langgraph.following import ACTIVE, location_headers, stream_response, wait_for
from services.gateway.routes.langgraph.interrupts import cancel_answer, resume_value
from services.gateway.routes.langgraph.multitask import displace, stop
from services.gateway.routes.langgraph.starting import new_turn
from services.gateway.routes.langgraph.stream import ResumePoint
from services.gateway.tenancy import ensure_user
from services.gateway.turns import check_documents, claim, publish_turn, request_stop
from shared.auth.tokens import Principal
from shared.contracts import ChatCommand, ResumeCommand
from shared.contracts.langgraph import LgCommand, LgRun, RunCreate, normalize_modes
from shared.db import conversations, lg_threads, runs
from shared.db.pool import tenant_tx
from shared.graph import turn_queue
from shared.graph.runner import from_checkpoint, thread_config

router = APIRouter(route_class=JsonBodyRoute)
LIMITED = [Depends(bus_up), Depends(lg_rate_limited)]


def run_out(row: dict[str, Any]) -> LgRun:
    return LgRun(**{k: row[k] for k in LgRun.model_fields})


async def events_position(gw: GatewayState) -> int:
    """The last `PP_EVENTS` sequence: a run's events all come after it."""
    info = await gw.bus.js.stream_info(gw.bus.subjects.events_stream)
    return info.state.last_seq


async def ensure_thread(gw: GatewayState, p: Principal, thread_id: uuid.UUID, if_not_exists: str) -> None:
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        if await lg_threads.get_thread(conn, thread_id, p.user_id) is not None:
            return
        if if_not_exists != "create":
            raise not_found("thread")
        await ensure_user(conn, p)
        stamp = {"graph_id": ASSISTANT_ID, "assistant_id": ASSISTANT_ID}
        if not await lg_threads.create_thread(conn, thread_id, p.tenant_id, p.user_id, stamp):
            raise not_found("thread")


async def answered_snapshot(
    gw: GatewayState, p: Principal, thread_id: uuid.UUID, body: RunCreate
) -> tuple[StateSnapshot, str | None]:
    """The checkpoint whose question a resume answers: the thread's newest, or the older one the run
    names (`checkpoint`), whose question was answered since: answered again there, the turn goes on
    as a new branch, as on LangGraph's server (shared/graph/answering.py). Returns it and, for an
    older one, its id."""
    snap = await snapshot(gw, thread_id)
    at = body.from_checkpoint
    if at is None or at == (snap.config or {}).get("configurable", {}).get("checkpoint_id"):
        return snap, None
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        await known_tree(conn, thread_id, at, body.checkpoint_field)
    return await gw.graph_view.aget_state(from_checkpoint(thread_config(str(thread_id)), at)), at


def resume_command(
    snap: StateSnapshot,
    branch: str | None,
    p: Principal,
    thread_id: uuid.UUID,
    run_id: uuid.UUID,
    body: RunCreate,
    command: LgCommand,
) -> ResumeCommand:
    """The resume of `body`, whose `command` (given apart, checked present) answers the question waiting
    at `snap`; `branch` names the older checkpoint answered again, if any."""
    pending = interrupts_of(snap)
    if not pending and branch:  # the client named the wrong checkpoint: a request error, naming the field
        field = body.checkpoint_field
        raise ApiError(422, "validation_error", f"{field}: no question waits at {branch}", {"field": field})
    if not pending:
        raise ApiError(409, "no_pending_interrupt", "this thread has no interrupt waiting for command.resume")
    answer = cancel_answer(pending[0].value) if command.closes else resume_value(pending[0].value, command.resume)
    return ResumeCommand(
        run_id=run_id,
        tenant_id=p.tenant_id,
        user_id=p.user_id,
        thread_id=thread_id,
        resume_value=answer,
        checkpoint_id=branch,
    )


def run_fields(
    body: RunCreate, p: Principal, thread_id: uuid.UUID, run_id: uuid.UUID, start_seq: int, turn_run_id: str
) -> dict:
    """The run's row. `turn_run_id` is the turn the run answers (a resume continues an earlier turn,
    whose id names the answer message its tokens belong to)."""
    kwargs = body.model_dump(mode="json", include={"input", "command", "stream_mode", "config", "context"})
    kwargs["turn_run_id"] = turn_run_id
    return {
        "run_id": run_id,
        "thread_id": thread_id,
        "tenant_id": p.tenant_id,
        "user_id": p.user_id,
        "assistant_id": body.assistant_id,
        "multitask_strategy": body.multitask_strategy,
        "metadata": body.metadata or {},
        "kwargs": kwargs,
        "start_seq": start_seq,
    }


async def start_run(
    gw: GatewayState, p: Principal, thread_id: uuid.UUID, body: RunCreate
) -> tuple[dict[str, Any], Feed]:
    """Record and launch (or enqueue) a run; returns its row and a subscription to its events."""
    check_assistant(body.assistant_id)
    await ensure_thread(gw, p, thread_id, body.if_not_exists)
    run_id = uuid.uuid4()
    start_seq = await events_position(gw)
    if body.command is not None:
        snap, branch = await answered_snapshot(gw, p, thread_id, body)
        cmd: ChatCommand | ResumeCommand = resume_command(snap, branch, p, thread_id, run_id, body, body.command)
        turn_run = run_id if branch else snap.values.get("run_id") or run_id  # a branch goes on as this run
        fields = run_fields(body, p, thread_id, run_id, start_seq, str(turn_run))
        async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
            await claim(conn, gw, p, thread_id, run_id)
            row = await runs.create_run(conn, status="running", **fields)
        return row, await launch(gw, p, cmd, "resume")
    cmd = await new_turn(gw, p, thread_id, run_id, body)
    fields = run_fields(body, p, thread_id, run_id, start_seq, str(run_id))
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        await check_documents(conn, cmd.tagged_doc_ids, cmd.tagged_set_ids, p.user_id)
    if body.multitask_strategy in ("interrupt", "rollback"):  # only once the new run is known to be valid
        await displace(gw, p, thread_id, rollback=body.multitask_strategy == "rollback")
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        started = await conversations.start_turn(
            conn,
            thread_id=thread_id,
            tenant_id=p.tenant_id,
            user_id=p.user_id,
            run_id=run_id,
            message=cmd.message,
            stale_after_s=gw.settings.turn_timeout_s,
            metadata={
                "tiptap_json": cmd.tiptap_json,
                "tagged_doc_ids": [str(d) for d in cmd.tagged_doc_ids],
                **({"attachment_ids": [str(d) for d in cmd.attachment_ids]} if cmd.attachment_ids else {}),
            },
        )
        if not started and body.multitask_strategy == "reject":
            raise ApiError(409, "thread_busy", "the thread is running another run (multitask_strategy 'reject')")
        queued = None if started else cmd.model_dump(mode="json")
        row = await runs.create_run(conn, status="running" if started else "pending", queued_command=queued, **fields)
    if started:
        return row, await launch(gw, p, cmd, "chat")
    # Queued behind the running run: follow the thread from before this run was recorded, so its first
    # events cannot be missed.
    sub = await gw.relay.subscribe(gw.bus.subjects.evt_thread(thread_id), after_seq=start_seq)
    await turn_queue.start_next(gw.bus, gw.db, p.tenant_id, p.user_id, thread_id, gw.settings.turn_timeout_s)
    return row, sub


async def launch(gw: GatewayState, p: Principal, cmd: ChatCommand | ResumeCommand, kind: str) -> Feed:
    try:
        return await publish_turn(gw, p, cmd, kind)
    except Exception:
        async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
            await runs.set_status(conn, cmd.run_id, "error")
        raise


async def owned_run(gw: GatewayState, p: Principal, thread_id: uuid.UUID, run_id: uuid.UUID) -> dict[str, Any]:
    await thread_row(gw, p, thread_id)
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        row = await runs.get_run(conn, thread_id, run_id, p.user_id)
    if row is None:
        raise not_found("run")
    return row


@router.post(
    "/threads/{thread_id}/runs/stream",
    response_class=EventSourceResponse,
    responses=SSE_RESPONSES,
    dependencies=LIMITED,
)
async def stream_run(
    thread_id: uuid.UUID,
    body: RunCreate,
    p: LgUser,
    gw: Gateway,
) -> Any:
    """Start a run and stream it: `metadata {run_id, attempt}` first, then one event per stream mode
    (`values`, `updates`, `messages-tuple` as `messages`, `custom`); the stream ends with the run."""
    row, sub = await start_run(gw, p, thread_id, body)
    cancel = body.on_disconnect == "cancel"
    return stream_response(gw, p, row, sub, body.modes, opening=True, replay=False, cancel_on_disconnect=cancel)


@router.post("/threads/{thread_id}/runs", response_model=LgRun, dependencies=LIMITED)
async def create_run(
    thread_id: uuid.UUID,
    body: RunCreate,
    response: Response,
    p: LgUser,
    gw: Gateway,
) -> LgRun:
    """Start a run in the background; follow it with `GET …/runs/{run_id}/stream` or `…/join`."""
    row, sub = await start_run(gw, p, thread_id, body)
    await sub.unsubscribe()
    response.headers.update(location_headers(thread_id, row["run_id"]))
    return run_out(row)


@router.post("/threads/{thread_id}/runs/wait", dependencies=LIMITED)
async def wait_run(
    thread_id: uuid.UUID,
    body: RunCreate,
    response: Response,
    p: LgUser,
    gw: Gateway,
) -> dict[str, Any]:
    """Start a run and answer with the thread's values once it ends."""
    row, sub = await start_run(gw, p, thread_id, body)
    response.headers.update(location_headers(thread_id, row["run_id"]))
    return await finished_values(gw, p, row, sub)


async def finished_values(gw: GatewayState, p: Principal, row: dict[str, Any], sub: Feed | None = None) -> dict:
    values = await wait_for(gw, p, row, sub)
    pending = interrupts_of(await snapshot(gw, row["thread_id"]))
    return {**values, "__interrupt__": [i.model_dump() for i in pending]} if pending else values


@router.get("/threads/{thread_id}/runs", response_model=list[LgRun])
async def list_runs(
    thread_id: uuid.UUID,
    p: LgUser,
    gw: Gateway,
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
    offset: Annotated[int, Query(ge=0)] = 0,
    status: Annotated[str | None, Query(pattern="^(pending|running|success|error|interrupted|timeout)$")] = None,
) -> list[LgRun]:
    await thread_row(gw, p, thread_id)
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        rows = await runs.list_runs(conn, thread_id, p.user_id, limit, offset, status)
    return [run_out(row) for row in rows]


@router.get("/threads/{thread_id}/runs/{run_id}", response_model=LgRun)
async def get_run(thread_id: uuid.UUID, run_id: uuid.UUID, p: LgUser, gw: Gateway) -> LgRun:
    return run_out(await owned_run(gw, p, thread_id, run_id))


@router.get("/threads/{thread_id}/runs/{run_id}/join")
async def join_run(
    thread_id: uuid.UUID,
    run_id: uuid.UUID,
    p: LgUser,
    gw: Gateway,
) -> dict[str, Any]:
    """Wait for the run to end; the thread's values (with `__interrupt__` when it stopped at a question)."""
    return await finished_values(gw, p, await owned_run(gw, p, thread_id, run_id))


router.add_api_route(
    "/threads/{thread_id}/runs/{run_id}/join",
    join_run,
    methods=["POST"],
    operation_id="join_run_post",
    summary="Join Run (POST, the same as GET)",
)


@router.get("/threads/{thread_id}/runs/{run_id}/stream", response_class=EventSourceResponse, responses=SSE_RESPONSES)
async def join_stream(
    thread_id: uuid.UUID,
    run_id: uuid.UUID,
    p: LgUser,
    gw: Gateway,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID", pattern=r"^(-1|\d{1,19}(\.\d{1,4})?)$")] = None,
    stream_mode: Annotated[list[str] | None, Query()] = None,
    cancel_on_disconnect: Annotated[str, Query(pattern="^(0|1|true|false|True|False)$")] = "0",
) -> Any:
    """Follow a run: after `Last-Event-ID` (`-1` = from the run's start, replayed from JetStream for
    `PP_EVENTS_MAX_AGE_S`), or from now without it; the stream ends with the run. With
    `cancel_on_disconnect`, a client that goes away first stops the run."""
    row = await owned_run(gw, p, thread_id, run_id)
    modes = join_modes(stream_mode, row)
    subject = gw.bus.subjects.evt_thread(thread_id)
    resume = None
    if last_event_id is None:
        if row["status"] not in ACTIVE:
            return EventSourceResponse(iter(()), headers=location_headers(thread_id, run_id))
        sub = await gw.relay.subscribe(subject)
    else:
        resume = ResumePoint(after=row["start_seq"]) if last_event_id == "-1" else ResumePoint.of(last_event_id)
        sub = await gw.relay.subscribe(subject, after_seq=resume.after)
    return stream_response(
        gw,
        p,
        row,
        sub,
        modes,
        opening=last_event_id == "-1",
        replay=True,
        resume=resume,
        cancel_on_disconnect=cancel_on_disconnect in ("1", "true", "True"),
    )


def join_modes(requested: list[str] | None, row: dict[str, Any]) -> list[str]:
    """The modes asked for (repeated, or one JSON list as the JS client sends them), else the run's own
    (the Python client sends an empty value when none is given)."""
    requested = [value for value in requested or [] if value]
    if not requested:
        stored = row["kwargs"].get("stream_mode") or "values"
        return normalize_modes([stored] if isinstance(stored, str) else stored)
    try:
        flat = [m for value in requested for m in (json.loads(value) if value.startswith("[") else [value])]
        return normalize_modes([str(m) for m in flat])
    except ValueError as exc:  # malformed JSON included
        raise ApiError(422, "validation_error", f"stream_mode: {exc}") from exc


@router.post("/threads/{thread_id}/runs/{run_id}/cancel", responses={204: {"description": "Rolled back"}})
async def cancel_run(
    thread_id: uuid.UUID,
    run_id: uuid.UUID,
    p: LgUser,
    gw: Gateway,
    wait: Annotated[str, Query(pattern="^(0|1|true|false|True|False)$")] = "0",
    action: Annotated[Literal["interrupt", "rollback"], Query()] = "interrupt",
) -> Any:
    """Stop a run for real: the worker stops at once and ends it with what was said so far (status
    `interrupted`); an enqueued run leaves the queue. `rollback` also removes the run's checkpoints,
    messages and record (204). `wait=1` answers once the run has stopped; 409 when it is not active."""
    row = await owned_run(gw, p, thread_id, run_id)
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        unqueued = row["status"] == "pending" and await runs.unqueue(conn, run_id)
        if unqueued and action == "rollback":
            await runs.roll_back(conn, row)
    if not unqueued:
        async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
            current = await conversations.running_run(conn, thread_id, p.user_id)
        if current != run_id:
            raise ApiError(409, "not_running", f"run {run_id} is not running (status {row['status']})")
        if action == "rollback" or wait in ("1", "true", "True"):
            await stop(gw, p, thread_id, run_id, rollback=action == "rollback")
        else:
            await request_stop(gw, p, thread_id, run_id)
    if action == "rollback":
        return Response(status_code=204)
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        stopped = await runs.get_run(conn, thread_id, run_id, p.user_id)
    if stopped is None:  # rolled back by another request meanwhile
        raise not_found("run")
    return run_out(stopped)
