"""`/lg/threads…`: PolicyPal conversations as LangGraph threads (the caller's own workspace threads)."""

from __future__ import annotations

import uuid

from fastapi import APIRouter

from services.gateway.deps import Gateway
from services.gateway.errors import ApiError, not_found
from services.gateway.routes.langgraph.bodies import JsonBodyRoute
from services.gateway.routes.langgraph.common import (
    ASSISTANT_ID,
    running,
    snapshot,
    state_out,
    thread_out,
    thread_row,
)
from services.gateway.routes.langgraph.deps import LgUser
from services.gateway.routes.langgraph.values import lc_message, thread_values
from services.gateway.tenancy import ensure_user
from shared.contracts.langgraph import (
    HistoryRequest,
    LgCheckpoint,
    LgState,
    LgThread,
    ThreadCreate,
    ThreadPatch,
    ThreadSearch,
)
from shared.db import conversations, lg_threads
from shared.db.pool import tenant_tx
from shared.graph.branches import HISTORY_LIMIT, thread_tree
from shared.graph.copying import copy_checkpoints
from shared.graph.runner import from_checkpoint, thread_config

router = APIRouter(route_class=JsonBodyRoute)
STAMP = {"graph_id": ASSISTANT_ID, "assistant_id": ASSISTANT_ID}


@router.post("/threads", response_model=LgThread)
async def create_thread(body: ThreadCreate, p: LgUser, gw: Gateway) -> LgThread:
    """A new empty thread; a client-chosen `thread_id` that exists answers 409 (`if_exists: raise`) or the
    caller's existing thread (`do_nothing`)."""
    thread_id = body.thread_id or uuid.uuid4()
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        await ensure_user(conn, p)
        created = await lg_threads.create_thread(
            conn, thread_id, p.tenant_id, p.user_id, {**(body.metadata or {}), **STAMP}
        )
        existing = None if created else await lg_threads.get_thread(conn, thread_id, p.user_id)
    if not created and (existing is None or body.if_exists == "raise"):
        raise ApiError(409, "thread_exists", f"thread {thread_id} already exists")
    return await thread_out(gw, p, await thread_row(gw, p, thread_id))


@router.post("/threads/search", response_model=list[LgThread])
async def search_threads(body: ThreadSearch, p: LgUser, gw: Gateway) -> list[LgThread]:
    """The caller's threads whose metadata contains `metadata` (every thread carries `graph_id` and
    `assistant_id` = `policypal`), newest activity first unless `sort_by` says otherwise."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        rows = await lg_threads.search_threads(
            conn,
            p.user_id,
            metadata=body.metadata or {},
            ids=body.ids,
            limit=body.limit if body.status is None else 100,
            offset=body.offset,
            sort_by=body.sort_by or "updated_at",
            descending=(body.sort_order or "desc") == "desc",
        )
    threads = [await thread_out(gw, p, row) for row in rows]
    if body.status is not None:
        threads = [t for t in threads if t.status == body.status][: body.limit]
    return threads


@router.get("/threads/{thread_id}", response_model=LgThread)
async def get_thread(thread_id: uuid.UUID, p: LgUser, gw: Gateway) -> LgThread:
    return await thread_out(gw, p, await thread_row(gw, p, thread_id))


@router.patch("/threads/{thread_id}", response_model=LgThread)
async def patch_thread(
    thread_id: uuid.UUID,
    body: ThreadPatch,
    p: LgUser,
    gw: Gateway,
) -> LgThread:
    """Merge `metadata` into the thread's metadata."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        if not await lg_threads.merge_metadata(conn, thread_id, p.user_id, body.metadata):
            raise not_found("thread")
    return await thread_out(gw, p, await thread_row(gw, p, thread_id))


@router.delete("/threads/{thread_id}", status_code=204)
async def delete_thread(thread_id: uuid.UUID, p: LgUser, gw: Gateway) -> None:
    """The conversation, its messages, its runs and its LangGraph checkpoints."""
    await thread_row(gw, p, thread_id)
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        if not await conversations.delete_conversation(conn, thread_id, p.user_id):
            raise not_found("thread")
    await gw.checkpoints.adelete_thread(str(thread_id))


@router.post("/threads/{thread_id}/copy", response_model=LgThread)
async def copy_thread(thread_id: uuid.UUID, p: LgUser, gw: Gateway) -> LgThread:
    """A new thread with this thread's messages, metadata and checkpoints (a pending question included);
    409 while a run holds the thread, since a copy would catch it half-way."""
    row = await thread_row(gw, p, thread_id)
    if running(row, gw.settings.turn_timeout_s):
        raise ApiError(409, "thread_busy", "the thread is running a run; copy it once the run has ended")
    target = uuid.uuid4()
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        if not await lg_threads.copy_thread(conn, thread_id, target, p.user_id):
            raise not_found("thread")
        await copy_checkpoints(gw.checkpoints, str(thread_id), str(target))
    return await thread_out(gw, p, await thread_row(gw, p, target))


@router.get("/threads/{thread_id}/state", response_model=LgState)
async def get_state(thread_id: uuid.UUID, p: LgUser, gw: Gateway) -> LgState:
    """The latest checkpoint (ids, next nodes, pending interrupts) with the conversation as `values.messages`."""
    await thread_row(gw, p, thread_id)
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        values = await thread_values(conn, thread_id)
    return state_out(thread_id, await snapshot(gw, thread_id), values)


@router.post("/threads/{thread_id}/history", response_model=list[LgState])
async def history(
    thread_id: uuid.UUID,
    body: HistoryRequest,
    p: LgUser,
    gw: Gateway,
) -> list[LgState]:
    """The thread's turn-level checkpoints on every branch, newest first, each with its parent and the
    messages of its own branch: what LangGraph clients branch with (useStream's getBranch/setBranch,
    Agent Chat UI's edit and regenerate), as langgraph-api shows them (shared/graph/branches.py,
    `milestones`: the checkpoints between, one per node, are left out and parents skip over them)."""
    await thread_row(gw, p, thread_id)
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        rows = await conversations.history(conn, thread_id, HISTORY_LIMIT)
        tree = await thread_tree(conn, thread_id)
    kept = tree.milestones()
    config = thread_config(str(thread_id))
    states = []
    for checkpoint_id in sorted(kept, reverse=True)[: body.limit]:
        snap = await gw.graph_view.aget_state(from_checkpoint(config, checkpoint_id))
        state = state_out(thread_id, snap, {"messages": [lc_message(r) for r in tree.visible(rows, checkpoint_id)]})
        parent = tree.kept_parent(checkpoint_id, kept)
        states.append(
            state.model_copy(
                update={
                    "parent_checkpoint": LgCheckpoint(thread_id=str(thread_id), checkpoint_id=parent)
                    if parent
                    else None
                }
            )
        )
    return states
