"""What the `/lg` routes share: the one assistant, thread lookup (404 for anyone else's), the
pending interrupt with its LangGraph id, and thread/state objects."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.types import StateSnapshot

from services.gateway.deps import GatewayState
from services.gateway.errors import not_found
from services.gateway.routes.langgraph.interrupts import offered
from services.gateway.routes.langgraph.values import thread_values
from shared.auth.tokens import Principal
from shared.contracts.langgraph import (
    ASSISTANT_UUID,
    GRAPH_ID,
    LgAssistant,
    LgCheckpoint,
    LgInterrupt,
    LgState,
    LgTask,
    LgThread,
)
from shared.db import lg_threads
from shared.db.pool import tenant_tx
from shared.graph.runner import thread_config

ASSISTANT_ID = GRAPH_ID
SINCE = datetime(2026, 1, 1, tzinfo=UTC)
ASSISTANT = LgAssistant(
    assistant_id=ASSISTANT_UUID,
    graph_id=ASSISTANT_ID,
    name="PolicyPal",
    description="Answers, summarizes, compares and audits your documents with citations (workspace mode).",
    metadata={"created_by": "system"},
    created_at=SINCE,
    updated_at=SINCE,
)


def known_assistant(assistant_id: str) -> bool:
    return assistant_id in (ASSISTANT_ID, ASSISTANT_UUID)


def check_assistant(assistant_id: str) -> None:
    if not known_assistant(assistant_id):
        raise not_found(f"assistant {assistant_id}")


async def thread_row(gw: GatewayState, p: Principal, thread_id: uuid.UUID) -> dict[str, Any]:
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        row = await lg_threads.get_thread(conn, thread_id, p.user_id)
    if row is None:
        raise not_found("thread")
    return row


async def snapshot(gw: GatewayState, thread_id: uuid.UUID) -> StateSnapshot:
    return await gw.graph_view.aget_state(thread_config(str(thread_id)))


def interrupts_of(snap: StateSnapshot) -> list[LgInterrupt]:
    return [
        LgInterrupt(value=offered(dict(pending.value)), id=pending.id)
        for task in snap.tasks
        for pending in task.interrupts
    ]


def running(row: dict[str, Any], stale_after_s: float) -> bool:
    started = row.get("run_started_at")
    return (
        row["status"] == "running"
        and started is not None
        and started > datetime.now(UTC) - timedelta(seconds=stale_after_s)
    )


async def thread_out(gw: GatewayState, p: Principal, row: dict[str, Any]) -> LgThread:
    snap = await snapshot(gw, row["thread_id"])
    pending = interrupts_of(snap)
    status = "busy" if running(row, gw.settings.turn_timeout_s) else "interrupted" if pending else "idle"
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        values = await thread_values(conn, row["thread_id"])
    return LgThread(
        thread_id=row["thread_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        metadata=row["metadata"],
        status=status,
        values=values,
        interrupts={pending[0].id: pending} if pending else {},
    )


def checkpoint_of(thread_id: uuid.UUID, config: RunnableConfig | None) -> LgCheckpoint | None:
    if not config:
        return None
    conf = config.get("configurable", {})
    return LgCheckpoint(
        thread_id=str(thread_id), checkpoint_ns=conf.get("checkpoint_ns", ""), checkpoint_id=conf.get("checkpoint_id")
    )


def state_out(thread_id: uuid.UUID, snap: StateSnapshot, values: dict[str, Any]) -> LgState:
    """A checkpoint as LangGraph clients read it. One that waits on no question is where a stage handed
    the run on (or where a run was stopped): `next` and `tasks` are empty, since a client reads a
    `next` without an interrupt as a breakpoint to continue, and PolicyPal's graph has none."""
    waiting = any(task.interrupts for task in snap.tasks)
    tasks = [
        LgTask(
            id=task.id,
            name=task.name,
            error=task.error if isinstance(task.error, str) or task.error is None else repr(task.error),
            interrupts=[LgInterrupt(value=offered(dict(i.value)), id=i.id) for i in task.interrupts],
        )
        for task in snap.tasks
        if waiting
    ]
    return LgState(
        values=values,
        next=list(snap.next) if waiting else [],
        tasks=tasks,
        checkpoint=checkpoint_of(thread_id, snap.config) or LgCheckpoint(thread_id=str(thread_id)),
        metadata=dict(snap.metadata or {}),
        created_at=snap.created_at,
        parent_checkpoint=checkpoint_of(thread_id, snap.parent_config),
        interrupts=[i for task in tasks for i in task.interrupts],
    )
