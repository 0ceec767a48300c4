"""Resuming a stage with a user's answer, so that a refused answer loses nothing.

The answer is checked against the question pending in the checkpoint before the graph sees it
(the gateway's check, again, for commands that reach the bus some other way): an answer that does
not fit is refused with nothing written. An answer that fits can still be refused by the node that
takes it (two usable documents were needed, one was named), or the stage can fail after it. LangGraph
has by then stored it as the task's resume value, and would hand it to the node again on the next
resume however the user answered; the answers the task held before this run are put back instead,
so the question is open again exactly as it was.

A resume may name an older checkpoint whose question was answered since (LangGraph's resume with a
`checkpoint`): the stage takes the answer there, and LangGraph writes what follows as a new branch.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.types import RESUME
from langgraph.types import Command, Interrupt, PregelTask, StateSnapshot, _interrupt_id

from shared.contracts import Question, ResumeValue
from shared.contracts.answers import AnswerError, checked_answer
from shared.graph.errors import InvalidAnswer
from shared.graph.palassist import BRANCH_RUN
from shared.graph.runner import from_checkpoint
from shared.graph.topology import AgentGraph


def pending_question(snapshot: StateSnapshot) -> tuple[PregelTask, Interrupt, Question] | None:
    """The task waiting on a PalAssist question, its interrupt, and the question."""
    for task in snapshot.tasks:
        for pending in task.interrupts:
            return task, pending, Question.model_validate(pending.value)
    return None


def answer_command(question: Question, answer: ResumeValue, branch_run_id: str | None = None) -> Command:
    """The graph input that resumes `question` with `answer`, or InvalidAnswer when it does not fit.
    With `branch_run_id`, the turn goes on as that run (a resume on a new branch): the node that
    takes the answer says so in its update (shared/graph/palassist.py), so that the branch's answer,
    usage and messages are that run's, beside the first branch's. Not a `Command(update=…)`: its
    writes are stored on the checkpoint answered, where a later branch from it would find them."""
    try:
        checked = checked_answer(question, answer).model_dump(mode="json")
    except AnswerError as exc:
        raise InvalidAnswer.of(question.interrupt_type, exc) from None
    return Command(resume={**checked, BRANCH_RUN: branch_run_id} if branch_run_id else checked)


def answers_before(task: PregelTask, pending: Interrupt, held: list[Any]) -> list[Any]:
    """The answers the task had when it asked `pending`: on a branch, the checkpoint still holds
    those it took after (the first branch's), which the node would otherwise read again. An
    interrupt's id is keyed by that count (langgraph.types._interrupt_id, LangGraph 1.2)."""
    for count in range(len(held) + 1):
        if _interrupt_id(f"{task.name}:{task.id}", count) == pending.id:
            return held[:count]
    return []  # an id of another scheme: PolicyPal's nodes ask one question each


async def held_answers(saver: BaseCheckpointSaver, snapshot: StateSnapshot, task_id: str) -> list[Any]:
    """The answers the task has taken so far (a node may ask twice), as the checkpoint holds them."""
    stored = await saver.aget_tuple(snapshot.config)
    for writer, channel, value in (stored.pending_writes or []) if stored else []:
        if writer == task_id and channel == RESUME:
            return value if isinstance(value, list) else [value]
    return []


async def resumed(
    saver: BaseCheckpointSaver,
    snapshot: StateSnapshot,
    answer: ResumeValue,
    run: Callable[[Command | None], Awaitable[Any]],
    branch_run_id: str | None = None,
) -> Any:
    """`run` the stage on the answer to the pending question; a stage that fails (a refusal, or any
    failure) leaves the question pending as it was before the answer. With no question pending (a redelivery of a stage
    that took the answer and broke off after), the stage goes on from the checkpoint."""
    pending = pending_question(snapshot)
    if pending is None:
        return await run(None)
    task, asked, question = pending
    command = answer_command(question, answer, branch_run_id)
    before = await held_answers(saver, snapshot, task.id)
    if branch_run_id:
        before = answers_before(task, asked, before)
        await saver.aput_writes(snapshot.config, [(RESUME, before)], task.id)
    try:
        return await run(command)
    except Exception:
        # Whatever ended the stage (a refusal, or a failure the command is retried for or given up on),
        # the question is put back as it was: a retry brings its answer again, a new answer is taken.
        # An upsert: RESUME is one of the special channels the checkpointer keeps one write of per task.
        await saver.aput_writes(snapshot.config, [(RESUME, before)], task.id)
        raise


def branch_run(config: RunnableConfig, run_id: uuid.UUID) -> str | None:
    """The run a resume's turn goes on as when it answers at an older checkpoint (`answered_at` put
    its id in the config): that run, on its new branch; None at the thread's newest."""
    return str(run_id) if "checkpoint_id" in config.get("configurable", {}) else None


async def answered_at(
    graph: AgentGraph, config: RunnableConfig, head: StateSnapshot, run_id: str, checkpoint_id: str | None
) -> tuple[RunnableConfig, StateSnapshot]:
    """Where a resume's stage starts: the thread's newest checkpoint (`head`), or the older one the
    resume names. Once the run has written a checkpoint of its own (a redelivery, or the stage after
    the one that took the answer), it goes on from the newest, which is on its branch."""
    if checkpoint_id is None or (head.metadata or {}).get("run_id") == run_id:
        return config, head
    at = from_checkpoint(config, checkpoint_id)
    return at, await graph.aget_state(at)
