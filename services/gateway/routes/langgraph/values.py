"""A thread's state `values` in LangChain message form, built from PolicyPal's UI history.

The history (`messages`) is the complete conversation with citations; the checkpoint's own message
list is folded past 15 messages (docs/architecture.md §7.5), so it is not what a client should render. Ids are the
history's ids: the answer to turn R is `uuid5(R, "assistant")` (a resume continues its turn), the id
its streamed token chunks carry, so a client merges the chunks into the final message.
"""

from __future__ import annotations

import uuid
from typing import Any

from shared.db.conn import Conn
from shared.graph.branches import branch_history


def ai_message_id(run_id: uuid.UUID | str) -> str:
    return str(uuid.uuid5(uuid.UUID(str(run_id)), "assistant"))


def lc_message(row: dict[str, Any]) -> dict[str, Any]:
    """One history row as a LangChain message dict; citations in `additional_kwargs`, the rest of the
    answer's metadata (confidence, engine, cost, run) in `response_metadata`."""
    meta = dict(row.get("metadata") or {})
    base = {"content": row["content"], "id": str(row["id"]), "name": None, "example": False}
    if row["role"] == "user":
        kwargs = {k: meta[k] for k in ("tagged_doc_ids", "tiptap_json") if meta.get(k)}
        return {
            "type": "human",
            **base,
            "additional_kwargs": kwargs,
            "response_metadata": {"run_id": meta.get("run_id")},
        }
    citations = meta.pop("citations", [])
    return {
        "type": "ai",
        **base,
        "additional_kwargs": {"citations": citations},
        "response_metadata": meta,
        "tool_calls": [],
        "invalid_tool_calls": [],
        "usage_metadata": None,
    }


async def thread_values(conn: Conn, thread_id: uuid.UUID) -> dict[str, Any]:
    """The current branch's messages (shared/graph/branches.py)."""
    rows = await branch_history(conn, thread_id)
    return {"messages": [lc_message(row) for row in rows]}


def token_chunk(message_id: str, text: str) -> dict[str, Any]:
    return {
        "type": "AIMessageChunk",
        "content": text,
        "id": message_id,
        "additional_kwargs": {},
        "response_metadata": {},
        "tool_call_chunks": [],
        "tool_calls": [],
        "invalid_tool_calls": [],
        "name": None,
        "example": False,
    }
