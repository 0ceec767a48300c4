"""Writing an action's answer through the LLM service: stream it, renumber citations, account for it."""

from __future__ import annotations

from langgraph.config import get_stream_writer

from services.actions.citations import CitationBook
from shared.db import users
from shared.db.pool import tenant_tx
from shared.graph.context import StageContext
from shared.graph.state import AgentState
from shared.llm import CallScope, build_prompt
from shared.llm.schemas import AnswerInputs


async def stream_answer(
    ctx: StageContext, state: AgentState, task: str, inputs: AnswerInputs, book: CitationBook
) -> str:
    """The answer text as shown to the user; every delta goes out as a `token` event.

    The user's profile (industry, location, company) goes into the prompt here, so every
    action's answer is shaped by it (docs/architecture.md §7.5); the offline engine, being extractive, ignores it.
    """
    writer = get_stream_writer()
    async with tenant_tx(ctx.db, state["tenant_id"], state["user_id"]) as conn:
        inputs = inputs.model_copy(update={"audience": await users.audience(conn, state["user_id"])})
    parts: list[str] = []
    async for delta in ctx.llm.stream(task, build_prompt(task, inputs), scope=CallScope.of(state)):
        shown = book.feed(delta)
        if shown:
            parts.append(shown)
            writer({"token": shown})
    tail = book.flush()
    if tail:
        parts.append(tail)
        writer({"token": tail})
    return "".join(parts).strip()
