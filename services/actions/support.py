"""Support-mode answer checks (docs/architecture.md §8): grade the answer, cache it or escalate to a human.

`grade_confidence` scores the inquire answer (0–1, task `grade_confidence`). At or above the
threshold the answer stands and is cached for paraphrased repeats; below it `escalate` marks the
ticket `pending_human`, sends the bridge message and waits in `interrupt()` until an agent's
answer resumes the run, which then becomes the assistant message (and seeds the cache).
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Command

from shared.db import support
from shared.db.pool import tenant_tx
from shared.embeddings.provider import embed_async
from shared.graph.context import StageContext
from shared.graph.palassist import wait_for
from shared.graph.state import AgentState
from shared.graph.topology import FORMAT_NODE
from shared.llm import CallScope, build_prompt
from shared.llm.schemas import GradeInputs, GradeOutput

HUMAN_ENGINE = "human-agent"


def question_of(state: AgentState) -> str:
    return state.get("standalone_question") or state.get("query", "")


async def remember(ctx: StageContext, state: AgentState, answer: str, citations: list, source: str) -> None:
    """Cache the answer under the standalone question, for the tenant's current knowledge."""
    question = question_of(state)
    vector = (await embed_async([question]))[0]
    async with tenant_tx(ctx.db, state["tenant_id"], state["user_id"]) as conn:
        await support.remember_answer(
            conn,
            state["tenant_id"],
            question=question,
            vector=vector,
            answer=answer,
            citations=citations,
            version=await support.corpus_version(conn),
            source=source,
        )


async def grade_confidence(state: AgentState, runtime: Runtime[StageContext]) -> Command:
    ctx = runtime.context
    answer = state.get("response") or ""
    used = bool(state.get("citations"))
    inputs = GradeInputs(
        question=question_of(state),
        answer=answer,
        similarities=[state.get("confidence_score") or 0.0] if used else [],
        high_similarity=ctx.settings.similarity.confidence_high,
        unmentioned=state.get("unmentioned") or [],
        unstated=bool(state.get("unstated")),
    )
    graded = await ctx.llm.structured(
        "grade_confidence", GradeOutput, build_prompt("grade_confidence", inputs), scope=CallScope.of(state)
    )
    if graded.score < ctx.settings.support_confidence_threshold:
        return Command(goto="escalate", update={"support_score": graded.score})
    await remember(ctx, state, answer, state.get("citations") or [], source="model")
    return Command(goto=FORMAT_NODE, update={"support_score": graded.score})


def bridge_message(number: int) -> str:
    return (
        f"I need to check this with an expert. Ticket #{number} created — "
        "a member of our team will answer here shortly."
    )


async def escalate(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any]:
    ctx = runtime.context
    async with tenant_tx(ctx.db, state["tenant_id"], state["user_id"]) as conn:
        number = await support.escalate_ticket(
            conn,
            state["thread_id"],
            question_of(state),
            ai_answer=state.get("response") or None,
            ai_confidence=state.get("support_score"),
        )
    # A human agent's non-empty answer (an escalation is resumed with nothing else).
    text = wait_for("escalation", bridge_message(number)).value
    await remember(ctx, state, text, [], source="human")
    return {
        "response": text,
        "citations": [],
        "answered_by": "human",
        "retrieval_confidence": "high",
        "confidence_score": 1.0,
        "engine": HUMAN_ENGINE,
    }
