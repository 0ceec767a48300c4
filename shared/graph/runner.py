"""Runs one stage of the graph and turns its stream into status/token events.

`stream_mode=["tasks", "updates", "custom"]`: a task start yields the node's status line
before the node works; `custom` carries token deltas written by nodes; `updates` tells when
doc_resolver has found documents.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.types import Interrupt

from shared.bus.events import RunEvents
from shared.contracts.events import DocRef, TokenEvent
from shared.contracts.langgraph import ASSISTANT_UUID, GRAPH_ID
from shared.graph.context import StageContext
from shared.graph.state import resolved_docs
from shared.graph.stream_parts import StreamPart
from shared.graph.topology import SELF_ANNOUNCED, AgentGraph, status_text


@dataclass
class StageOutcome:
    next_nodes: tuple[str, ...]
    interrupts: list[Interrupt]
    values: dict[str, Any]

    @property
    def finished(self) -> bool:
        return not self.next_nodes


class RunStopped(Exception):
    """The user stopped the run while this stage worked; `said` is the answer text streamed so far."""

    def __init__(self, said: str) -> None:
        super().__init__("run stopped by the user")
        self.said = said


def thread_config(thread_id: str, run_id: uuid.UUID | None = None) -> RunnableConfig:
    """The thread's config; for a run, with the metadata LangGraph's server writes into each of the
    run's checkpoints (`run_id`, `graph_id`, `assistant_id`), by which clients find a run's history."""
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    if run_id is not None:
        config["metadata"] = {"run_id": str(run_id), "graph_id": GRAPH_ID, "assistant_id": ASSISTANT_UUID}
    return config


def from_checkpoint(config: RunnableConfig, checkpoint_id: str) -> RunnableConfig:
    """The run starts from an older checkpoint: LangGraph writes its checkpoints as a new branch
    whose first parent is that one (regenerate, edit and resend)."""
    return {**config, "configurable": {**config.get("configurable", {}), "checkpoint_id": checkpoint_id}}


def at_head(config: RunnableConfig) -> RunnableConfig:
    """The same thread read at its newest checkpoint, where a run that started from an older one went on."""
    configurable = {k: v for k, v in config.get("configurable", {}).items() if k != "checkpoint_id"}
    return {**config, "configurable": configurable}


async def run_stage(
    graph: AgentGraph,
    graph_input: Any,
    *,
    config: RunnableConfig,
    context: StageContext,
    events: RunEvents,
    interrupt_before: tuple[str, ...] | None = None,
    stop: asyncio.Event | None = None,
) -> StageOutcome:
    """Run the stage to its end, or until `stop` is set: then the stage is cancelled where it is
    (between nodes, or inside a node's model call or stream) and RunStopped carries what was said."""
    said: list[str] = []
    work = asyncio.ensure_future(_drive(graph, graph_input, config, context, events, interrupt_before, said))
    try:
        if stop is None:
            await work
        elif not await _finished_before(work, stop):
            raise RunStopped("".join(said))
    finally:
        work.cancel()  # a no-op once it is done; otherwise the stage is abandoned where it is
        with contextlib.suppress(asyncio.CancelledError):
            await work
        await events.flush()  # the last tokens go out before the stage's outcome is published
    snapshot = await graph.aget_state(at_head(config))
    interrupts = [i for task in snapshot.tasks for i in task.interrupts]
    return StageOutcome(next_nodes=tuple(snapshot.next), interrupts=interrupts, values=dict(snapshot.values))


async def _finished_before(work: asyncio.Future, stop: asyncio.Event) -> bool:
    """Wait for the stage or the stop signal; a stage that finished wins a tie."""
    stopped = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({work, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
    return work.done()


async def _relay_part(events: RunEvents, part: StreamPart, said: list[str]) -> None:
    """A node's stream part (shared/graph/stream_parts.py) as the thread's event."""
    if "status" in part:
        status = part["status"]
        node = status["node"]
        extra = {"web_query": status["web_query"]} if "web_query" in status else {}
        await events.status(node, status.get("message") or status_text(node), **extra)
    else:
        said.append(part["token"])
        await events.emit(TokenEvent(thread_id=events.thread_id, run_id=events.run_id, text=part["token"]))


async def _drive(
    graph: AgentGraph,
    graph_input: Any,
    config: RunnableConfig,
    context: StageContext,
    events: RunEvents,
    interrupt_before: tuple[str, ...] | None,
    said: list[str],
) -> None:
    # Stream format v2: each part a TypedDict that says its mode, so the checker follows each branch.
    async for part in graph.astream(
        graph_input,
        config,
        context=context,
        stream_mode=["tasks", "updates", "custom"],
        interrupt_before=list(interrupt_before) if interrupt_before else None,
        version="v2",
    ):
        if part["type"] == "tasks" and "input" in part["data"]:
            name = part["data"]["name"]
            if name in SELF_ANNOUNCED:
                continue
            await events.status(name, status_text(name))
        elif part["type"] == "custom":
            await _relay_part(events, cast(StreamPart, part["data"]), said)
        elif part["type"] == "updates" and "doc_resolver" in part["data"]:
            update = part["data"]["doc_resolver"]
            found = [DocRef(id=doc.id, title=doc.title) for doc in resolved_docs(update or {})]
            if found:
                await events.status("doc_resolver", status_text("doc_resolver"), docs_found=found)
