"""Which messages a checkpoint shows, on a thread that has branches.

PolicyPal's UI history (`messages`) is one table per thread, in the order written; a run started
from an older checkpoint (regenerate, edit and resend: `checkpoint` on `/lg`, the workspace's
buttons) forks the thread's LangGraph checkpoints, so the history of one branch is the messages of
the runs on that branch's chain of checkpoints. The rules, as LangGraph's server shows them:

- a run is on a checkpoint's branch when the checkpoint or one of its ancestors was written by it
  after its input was applied (a run's `input` checkpoint still holds the previous turn's state:
  it is where an edited message forks from, so that message must not show there);
- a checkpoint shows what its runs wrote until the thread went on from it (its first child), a
  leaf everything they wrote (an answer or a PalAssist question is written after its checkpoint);
- what a run wrote after the thread went on from its last checkpoint on a chain, and before this
  chain went on from it, was written by another chain's run going on from there under the turn's
  run id (a resume): a question answered again on another branch does not show the first answer;
- a message of a run no checkpoint names (written before checkpoints carried `run_id`, or by a run
  that failed before its first checkpoint) is read by time alone, as before branches: a checkpoint
  shows it when it was written before the checkpoint, the head shows it always.

The thread's head (the newest checkpoint, where `aget_state` without a checkpoint id reads) is the
current branch, shown by `/lg` state and values and by the workspace.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from shared.db import conversations
from shared.db.checkpoint_tree import CheckpointNode, thread_checkpoints
from shared.db.conn import Conn

HISTORY_LIMIT = 500


class CheckpointTree:
    """A thread's checkpoints with their parents; answers which runs and messages each one shows."""

    def __init__(self, nodes: Sequence[CheckpointNode]) -> None:
        self.nodes = {n.id: n for n in nodes}
        self.head = max(self.nodes) if self.nodes else None  # checkpoint ids sort by time
        first_child: dict[str, datetime] = {}
        for node in nodes:
            if node.parent is not None:
                seen = first_child.get(node.parent)
                first_child[node.parent] = node.created_at if seen is None else min(seen, node.created_at)
        self.first_child = first_child
        self.known_runs = {n.run_id for n in nodes if n.run_id and n.source != "input"}
        self.last_seen = cache(self._last_seen)

    def milestones(self) -> set[str]:
        """The checkpoints a client sees in history: where a turn starts (its `input` checkpoint, the
        fork point of an edited message) and first shows its message, where it ends or waits on a
        question (a leaf, a checkpoint a new turn or a resume goes on from), and the root. The
        checkpoints between, one per node and stage hand-over, are PolicyPal's own: without them a
        turn is the three or four states a client's short history window (useStream asks for 10)
        must hold to see a fork and both of its branches."""
        kept: set[str] = set()
        children: dict[str, list[CheckpointNode]] = {}
        for node in self.nodes.values():
            if node.parent is not None:
                children.setdefault(node.parent, []).append(node)
        for node in self.nodes.values():
            parent = self.nodes.get(node.parent) if node.parent else None
            below = children.get(node.id, [])
            if (
                parent is None
                or node.source == "input"
                or parent.source == "input"
                or not below
                or any(c.source == "input" or c.run_id != node.run_id for c in below)
            ):
                kept.add(node.id)
        return kept

    def kept_parent(self, checkpoint_id: str, kept: set[str]) -> str | None:
        """The nearest ancestor among `kept`: a checkpoint's parent as history shows it."""
        for node in self.chain(checkpoint_id)[1:]:
            if node.id in kept:
                return node.id
        return None

    def chain(self, checkpoint_id: str) -> list[CheckpointNode]:
        """The checkpoint and its ancestors, newest first."""
        out: list[CheckpointNode] = []
        node = self.nodes.get(checkpoint_id)
        while node is not None:
            out.append(node)
            node = self.nodes.get(node.parent) if node.parent else None
        return out

    def _last_seen(self, checkpoint_id: str) -> dict[str, tuple[datetime, datetime | None]]:
        """Each run on the checkpoint's chain (one that wrote a checkpoint there after its input was
        applied) and the span in which what it wrote belongs to another chain: from when the thread
        first went on from the run's last checkpoint there to when this chain went on from it (none
        when this chain is the one that went on first, or ends there)."""
        seen: dict[str, tuple[datetime, datetime | None]] = {}
        later: datetime | None = None
        for node in self.chain(checkpoint_id):
            if node.run_id and node.source != "input" and node.run_id not in seen:
                seen[node.run_id] = (self.first_child.get(node.id, node.created_at), later)
            later = node.created_at
        return seen

    def shows(self, row: dict[str, Any], checkpoint_id: str) -> bool:
        run = (row.get("metadata") or {}).get("run_id")
        until = self.first_child.get(checkpoint_id)
        if until is not None and row["created_at"] >= until:
            return False
        if run in self.known_runs:
            seen = self.last_seen(checkpoint_id).get(run)
            if seen is None:
                return False
            elsewhere, went_on = seen
            return went_on is None or not elsewhere <= row["created_at"] < went_on
        return checkpoint_id == self.head or row["created_at"] <= self.nodes[checkpoint_id].created_at

    def visible(self, rows: Sequence[dict[str, Any]], checkpoint_id: str | None = None) -> list[dict[str, Any]]:
        """The rows the checkpoint shows (the head's when none is named); all of them on a thread
        without checkpoints yet."""
        at = checkpoint_id or self.head
        if at is None or at not in self.nodes:
            return list(rows)
        return [row for row in rows if self.shows(row, at)]

    def turn_start(self, checkpoint_id: str, turns: set[str]) -> CheckpointNode | None:
        """The `input` checkpoint of the turn the checkpoint belongs to (`turns`: the runs that
        started turns, i.e. wrote a user message): a regenerate forks from it, and so does an edited
        message given a checkpoint in the middle of a turn."""
        for node in self.chain(checkpoint_id):
            if node.source == "input" and node.run_id in turns:
                return node
        return None


async def thread_tree(conn: Conn, thread_id: uuid.UUID | str) -> CheckpointTree:
    return CheckpointTree(await thread_checkpoints(conn, thread_id))


async def branch_history(
    conn: Conn, thread_id: uuid.UUID | str, limit: int = HISTORY_LIMIT
) -> list[dict[str, Any]]:
    """The current branch's messages (the head's), oldest first: what the workspace and `/lg` show."""
    rows = await conversations.history(conn, thread_id, limit)
    return (await thread_tree(conn, thread_id)).visible(rows)
