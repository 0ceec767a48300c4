"""Where a turn started from a checkpoint begins: regenerate and edit-and-resend, for `/lg` runs
with a `checkpoint` and for the workspace's buttons.

- **Regenerate** (a checkpoint, no message): the turn the checkpoint belongs to runs again, with the
  input it was given (kept by LangGraph in the turn's `input` checkpoint), from that checkpoint: a
  new branch beside the old answer.
- **A new message from a checkpoint** forks the thread there when the checkpoint is settled (a
  turn's end, or a question waiting); a checkpoint in the middle of a turn (the `input` checkpoint
  an edited message's parent is, or a stage hand-over) forks from that turn's start, so the edited
  message replaces the turn's. The thread's newest checkpoint, and any checkpoint of the turn that
  is running now (a client whose view lags the run), is no fork: the message follows as usual.

Bad checkpoints are 422s naming the field (`field`), never a worker's exception.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from services.gateway.errors import ApiError
from shared.db import conversations
from shared.db.conn import Conn
from shared.graph.branches import HISTORY_LIMIT, CheckpointTree, thread_tree
from shared.graph.runner import from_checkpoint, thread_config
from shared.graph.topology import AgentGraph

START_CHANNEL = "__start__"  # LangGraph's channel holding a turn's input until its first step


@dataclass(frozen=True)
class Regenerated:
    """The turn to run again: where it starts and the input it was given (`turn_input`'s dict)."""

    checkpoint_id: str
    turn: dict[str, Any]


def bad_checkpoint(field: str, reason: str) -> ApiError:
    return ApiError(422, "validation_error", f"{field}: {reason}", {"field": field})


async def known_tree(conn: Conn, thread_id: uuid.UUID, checkpoint_id: str, field: str) -> CheckpointTree:
    tree = await thread_tree(conn, thread_id)
    if checkpoint_id not in tree.nodes:
        raise bad_checkpoint(field, f"{checkpoint_id} is not a checkpoint of this thread")
    return tree


async def settled(graph: AgentGraph, thread_id: uuid.UUID, checkpoint_id: str) -> bool:
    """A checkpoint where a turn ended or a question waits: nothing would run from it without input."""
    snap = await graph.aget_state(from_checkpoint(thread_config(str(thread_id)), checkpoint_id))
    return not snap.next or any(task.interrupts for task in snap.tasks)


async def turn_runs(conn: Conn, thread_id: uuid.UUID) -> set[str]:
    """The runs that started turns: those that wrote a user message."""
    rows = await conversations.history(conn, thread_id, HISTORY_LIMIT)
    return {str(r["metadata"].get("run_id")) for r in rows if r["role"] == "user" and r["metadata"].get("run_id")}


async def message_fork(
    graph: AgentGraph,
    conn: Conn,
    thread_id: uuid.UUID,
    checkpoint_id: str,
    *,
    running: bool,
    field: str,
) -> str | None:
    """The checkpoint a new message starts from, or None when it simply follows the thread's head."""
    tree = await known_tree(conn, thread_id, checkpoint_id, field)
    if checkpoint_id == tree.head:
        return None
    is_settled = await settled(graph, thread_id, checkpoint_id)
    on_head = tree.head is not None and any(n.id == checkpoint_id for n in tree.chain(tree.head))
    if running and on_head and not is_settled:
        return None
    if is_settled:
        return checkpoint_id
    start = tree.turn_start(checkpoint_id, await turn_runs(conn, thread_id))
    if start is None:
        raise bad_checkpoint(field, f"{checkpoint_id} is inside no turn this thread can be edited from")
    return start.id


async def regenerated(
    checkpoints: BaseCheckpointSaver, conn: Conn, thread_id: uuid.UUID, checkpoint_id: str, field: str
) -> Regenerated:
    """The turn the checkpoint belongs to, to run again from its start."""
    tree = await known_tree(conn, thread_id, checkpoint_id, field)
    start = tree.turn_start(checkpoint_id, await turn_runs(conn, thread_id))
    if start is None:
        raise bad_checkpoint(field, f"{checkpoint_id} belongs to no turn that can be regenerated")
    saved = await checkpoints.aget_tuple(from_checkpoint(thread_config(str(thread_id)), start.id))
    turn = (saved.checkpoint["channel_values"].get(START_CHANNEL) if saved else None) or {}
    if not isinstance(turn, dict) or not turn.get("query"):
        raise bad_checkpoint(field, f"the turn at {checkpoint_id} kept no input to run again")
    return Regenerated(checkpoint_id=start.id, turn=turn)


async def last_turn_start(conn: Conn, thread_id: uuid.UUID) -> str:
    """Where the last turn of the thread's current branch started: a message that replaces that turn
    forks there (the workspace's "Edit and resend"). 409 on a thread with no turn yet."""
    tree = await thread_tree(conn, thread_id)
    start = tree.turn_start(tree.head, await turn_runs(conn, thread_id)) if tree.head else None
    if start is None:
        raise ApiError(409, "no_turn", "this conversation has no turn to replace yet")
    return start.id


async def head_of(conn: Conn, thread_id: uuid.UUID) -> str:
    """The thread's newest checkpoint (the current branch's end); 409 on a thread with none."""
    head = (await thread_tree(conn, thread_id)).head
    if head is None:
        raise ApiError(409, "no_turn", "this conversation has no turn to regenerate yet")
    return head
