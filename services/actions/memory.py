"""What a turn leaves for later turns besides its answer: the conversation's title and, for long
conversations, a summary that replaces the oldest messages in the checkpoint (docs/architecture.md §7.5).

Up to 15 messages the agent sees the whole history. Beyond that the oldest messages (all but
the last 10) are folded into `conversation_summary` and removed from the checkpointed state;
the UI history in `messages` keeps every message.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AnyMessage, RemoveMessage

from shared.db import conversations
from shared.db.pool import tenant_tx
from shared.graph.context import StageContext
from shared.graph.state import AgentState
from shared.llm import CallScope, build_prompt
from shared.llm.schemas import ConversationSummaryInputs, TextOutput, TitleInputs

FULL_HISTORY_MAX = 15
KEEP_VERBATIM = 10


def _line(message: AnyMessage) -> str:
    role = {"human": "user", "ai": "assistant"}.get(message.type, message.type)
    return f"{role}: {message.content}"


async def fold_old_messages(ctx: StageContext, state: AgentState, new: list[AnyMessage]) -> dict[str, Any]:
    """The state update that summarizes and drops the oldest messages, or {} while history is short."""
    messages = [*state.get("messages", []), *new]
    if len(messages) <= FULL_HISTORY_MAX:
        return {}
    old = messages[:-KEEP_VERBATIM]
    inputs = ConversationSummaryInputs(
        previous_summary=state.get("conversation_summary", ""), messages=[_line(m) for m in old]
    )
    summary = await ctx.llm.structured(
        "conversation_summary", TextOutput, build_prompt("conversation_summary", inputs), scope=CallScope.of(state)
    )
    return {"conversation_summary": summary.text, "messages": [RemoveMessage(id=m.id) for m in old if m.id]}


async def name_conversation(ctx: StageContext, state: AgentState) -> None:
    """After the first turn, the `title` task names the conversation unless the user renamed it already."""
    if any(m.type == "ai" for m in state.get("messages", [])):
        return
    first = state.get("query", "")
    # Named after what was asked, without the mention labels ("@Inquire @Retention Policy …"): the chat
    # header and the list show the title, the tags are in the message itself.
    asked = TitleInputs(message=state.get("clean_query") or first)
    title = await ctx.llm.structured("title", TextOutput, build_prompt("title", asked), scope=CallScope.of(state))
    async with tenant_tx(ctx.db, state["tenant_id"], state["user_id"]) as conn:
        await conversations.retitle_automatic(conn, state["thread_id"], first, title.text)
