"""Runs one stage of the graph and turns its stream into status/token events.

`stream_mode=["tasks", "updates", "custom"]`: a task start yields the node's status line
before the node works; `custom` carries token deltas written by nodes; `updates` tells when
doc_resolver has found documents.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Interrupt

from shared.bus.events import RunEvents
from shared.contracts.events import DocRef, TokenEvent
from shared.graph.context import StageContext


@dataclass
class StageOutcome:
    next_nodes: tuple[str, ...]
    interrupts: list[Interrupt]
    values: dict[str, Any]

    @property
    def finished(self) -> bool:
        return not self.next_nodes


def thread_config(thread_id: str) -> RunnableConfig:
    return {"configurable": {"thread_id": thread_id}}


async def run_stage(
    graph: CompiledStateGraph,
    graph_input: Any,
    *,
    config: RunnableConfig,
    context: StageContext,
    events: RunEvents,
    interrupt_before: tuple[str, ...] | None = None,
) -> StageOutcome:
    async for mode, chunk in graph.astream(
        graph_input,
        config,
        context=context,
        stream_mode=["tasks", "updates", "custom"],
        interrupt_before=list(interrupt_before) if interrupt_before else None,
    ):
        if mode == "tasks" and "input" in chunk:
            await events.status(chunk["name"])
        elif mode == "custom" and isinstance(chunk, dict) and "status" in chunk:
            status = dict(chunk["status"])
            await events.status(status.pop("node"), **status)
        elif mode == "custom" and isinstance(chunk, dict) and "token" in chunk:
            await events.emit(TokenEvent(thread_id=events.thread_id, run_id=events.run_id, text=chunk["token"]))
        elif mode == "updates" and isinstance(chunk, dict) and "doc_resolver" in chunk:
            update = chunk["doc_resolver"] or {}
            found = [
                DocRef(id=doc_id, title=title)
                for doc_id, title in zip(
                    update.get("resolved_doc_ids", []), update.get("resolved_doc_titles", []), strict=False
                )
            ]
            if found:
                await events.status("doc_resolver", docs_found=found)
    snapshot = await graph.aget_state(config)
    interrupts = [i for task in snapshot.tasks for i in task.interrupts]
    return StageOutcome(next_nodes=tuple(snapshot.next), interrupts=interrupts, values=dict(snapshot.values))
