"""Copying a thread's LangGraph checkpoints to another thread (`POST /lg/threads/{id}/copy`).

The Postgres checkpointer has no `acopy_thread`; the copy goes through its public methods: every
checkpoint, oldest first so each one's parent is already there, with its pending writes (a pending
PalAssist question stays pending in the copy). The state names its thread (`AgentState.thread_id`,
where a turn's messages and events go); in the copy it names the copy.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver, Checkpoint

from shared.graph.runner import thread_config

THREAD_CHANNEL = "thread_id"


async def copy_checkpoints(saver: BaseCheckpointSaver, source: str, target: str) -> int:
    """Copy every checkpoint of `source` into `target`; returns how many."""
    stored = [t async for t in saver.alist(thread_config(source))]
    for tup in reversed(stored):
        namespace = tup.config["configurable"].get("checkpoint_ns", "")
        parent = (tup.parent_config or {}).get("configurable", {}).get("checkpoint_id")
        into: dict[str, Any] = {"thread_id": target, "checkpoint_ns": namespace}
        if parent:
            into["checkpoint_id"] = parent
        values = dict(tup.checkpoint["channel_values"])
        if values.get(THREAD_CHANNEL) == source:
            values[THREAD_CHANNEL] = target
        checkpoint: Checkpoint = tup.checkpoint.copy()
        checkpoint["channel_values"] = values
        written = await saver.aput(
            {"configurable": into}, checkpoint, tup.metadata, dict(tup.checkpoint["channel_versions"])
        )
        by_task: defaultdict[str, list[tuple[str, Any]]] = defaultdict(list)
        for task_id, channel, value in tup.pending_writes or []:
            by_task[task_id].append((channel, target if channel == THREAD_CHANNEL and value == source else value))
        for task_id, writes in by_task.items():
            await saver.aput_writes(written, writes, task_id)
    return len(stored)
