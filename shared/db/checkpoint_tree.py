"""SQL over LangGraph's `checkpoints` table: a thread's checkpoints as a tree (id, parent, time, and
the run that wrote each), without loading their channel values.

A thread branches when a run starts from an older checkpoint (regenerate, edit and resend): the
checkpointer then holds several chains sharing a root, and which messages a checkpoint shows
depends on the chain it sits on (shared/graph/branches.py).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import NamedTuple

from shared.db.conn import Conn


class CheckpointNode(NamedTuple):
    id: str
    parent: str | None
    created_at: datetime
    source: str  # "input" (a turn's input, not yet applied), "loop", "update" or "fork"
    run_id: str | None  # the run that wrote it (LangGraph's server metadata; absent on older checkpoints)


async def thread_checkpoints(conn: Conn, thread_id: uuid.UUID | str) -> list[CheckpointNode]:
    """Every checkpoint of the thread's root namespace, oldest first."""
    rows = await (
        await conn.execute(
            "SELECT checkpoint_id, parent_checkpoint_id, (checkpoint->>'ts')::timestamptz AS created_at,"
            " COALESCE(metadata->>'source', '') AS source, metadata->>'run_id' AS run_id"
            " FROM checkpoints WHERE thread_id = %s AND checkpoint_ns = '' ORDER BY checkpoint_id",
            (str(thread_id),),
        )
    ).fetchall()
    return [
        CheckpointNode(r["checkpoint_id"], r["parent_checkpoint_id"], r["created_at"], r["source"], r["run_id"])
        for r in rows
    ]
