"""Writing an action's answer through the LLM service: stream it, renumber citations, account for it."""

from __future__ import annotations

from langgraph.config import get_stream_writer

from services.actions.citations import CitationBook
from shared.graph.context import StageContext
from shared.graph.state import AgentState
from shared.llm import CallScope, build_prompt
from shared.llm.schemas import AnswerInputs


async def stream_answer(
    ctx: StageContext, state: AgentState, task: str, inputs: AnswerInputs, book: CitationBook
) -> str:
    """The answer text as shown to the user; every delta goes out as a `token` event."""
    writer = get_stream_writer()
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
