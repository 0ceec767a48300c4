"""Writing an action's answer through the LLM service: stream it, renumber citations, account for it."""

from __future__ import annotations

from services.actions.citations import CitationBook
from services.actions.profile import user_profile
from shared.graph.context import StageContext
from shared.graph.state import AgentState
from shared.graph.stream_parts import part_writer, token_part
from shared.llm import CallScope, build_prompt
from shared.llm.schemas import AnswerInputs


async def stream_answer(
    ctx: StageContext, state: AgentState, task: str, inputs: AnswerInputs, book: CitationBook
) -> str:
    """The answer text as shown to the user; every delta goes out as a `token` event.

    The user's profile (industry, location, company) goes into the inputs here, so every answer is
    shaped by it (docs/architecture.md §7.5): a model reads it in the prompt; the offline engine ranks
    the passages that name the user's place or trade first.
    """
    writer = part_writer()
    inputs = inputs.model_copy(update={"profile": await user_profile(ctx, state)})
    parts: list[str] = []
    async for delta in ctx.llm.stream(task, build_prompt(task, inputs), scope=CallScope.of(state)):
        shown = book.feed(delta)
        if shown:
            parts.append(shown)
            writer(token_part(shown))
    tail = book.flush()
    if tail:
        parts.append(tail)
        writer(token_part(tail))
    return "".join(parts).strip()
