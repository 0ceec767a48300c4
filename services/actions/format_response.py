"""format_response (docs/architecture.md §7.5): the terminal shape of the turn, persisted for the UI history.

Merges the resolved documents into the `conversation_docs` registry, appends the assistant
message to the checkpointed conversation and writes it (with citations, confidences, action,
findings, tokens and cost) to `messages`. Ids derive from the run, so a replay writes nothing
twice.
"""

from __future__ import annotations

import uuid
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from services.actions.memory import fold_old_messages, name_conversation
from shared.contracts import TurnResult
from shared.contracts.api import MessageMetadata
from shared.db import conversations
from shared.db.pool import tenant_tx
from shared.db.usage import run_totals
from shared.graph.context import StageContext
from shared.graph.state import AgentState, resolved_docs
from shared.llm import OFFLINE_ENGINE


def final_text(state: AgentState) -> str:
    notices = [n for n in state.get("notices", []) if n]
    body = state.get("response") or ""
    return "\n\n".join([body, *(f"_{n}_" for n in dict.fromkeys(notices))]) if notices else body


async def format_response(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any]:
    ctx = runtime.context
    run_id = uuid.UUID(state["run_id"])
    message_id = uuid.uuid5(run_id, "assistant")
    text = final_text(state)
    engine = state.get("engine") or OFFLINE_ENGINE
    reply = AIMessage(content=text, id=f"{run_id}:assistant")
    # Model calls first, so that their cost is in the run's totals below.
    await name_conversation(ctx, state)
    memory = await fold_old_messages(ctx, state, [reply])
    async with tenant_tx(ctx.db, state["tenant_id"], state["user_id"]) as conn:
        tokens, cost = await run_totals(conn, str(run_id))
    result = TurnResult.of(state, response=text, engine=engine, tokens_used=tokens, cost_usd=round(cost, 6))
    metadata = MessageMetadata.answer(result, run_id=run_id, cancelled=bool(state.get("cancelled")))
    async with tenant_tx(ctx.db, state["tenant_id"], state["user_id"]) as conn:
        await conversations.add_message(
            conn,
            message_id=message_id,
            thread_id=state["thread_id"],
            tenant_id=state["tenant_id"],
            role="assistant",
            content=text,
            metadata=metadata.model_dump(mode="json"),
        )
    registry = {doc.title: str(doc.id) for doc in resolved_docs(state)}
    return {
        **result.model_dump(mode="json", include={"response", "engine", "tokens_used", "cost_usd"}),
        "message_id": str(message_id),
        "conversation_docs": registry,
        "messages": [reply, *memory.pop("messages", [])],
        **memory,
    }
