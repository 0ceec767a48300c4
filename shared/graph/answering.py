"""Resuming a stage with a user's answer, so that a refused answer loses nothing.

The answer is checked against the question pending in the checkpoint before the graph sees it
(the gateway's check, again, for commands that reach the bus some other way): an answer that does
not fit is refused with nothing written. An answer that fits can still be refused by the node that
takes it (two usable documents were needed, one was named), or the stage can fail after it. LangGraph
has by then stored it as the task's resume value, and would hand it to the node again on the next
resume however the user answered; the answers the task held before this run are put back instead,
so the question is open again exactly as it was.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.types import RESUME
from langgraph.types import Command, StateSnapshot

from shared.contracts import Question, ResumeValue
from shared.contracts.answers import AnswerError, checked_answer
from shared.graph.errors import InvalidAnswer


def pending_question(snapshot: StateSnapshot) -> tuple[str, Question] | None:
    """The task waiting on a PalAssist question, and the question."""
    for task in snapshot.tasks:
        for pending in task.interrupts:
            return task.id, Question.model_validate(pending.value)
    return None


def answer_command(question: Question, answer: ResumeValue) -> Command:
    """The graph input that resumes `question` with `answer`, or InvalidAnswer when it does not fit."""
    try:
        checked = checked_answer(question, answer)
    except AnswerError as exc:
        raise InvalidAnswer.of(question.interrupt_type, exc) from None
    return Command(resume=checked.model_dump(mode="json"))


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
) -> Any:
    """`run` the stage on the answer to the pending question; a stage that fails (a refusal, or any
    failure) leaves the question pending as it was before the answer. With no question pending (a redelivery of a stage
    that took the answer and broke off after), the stage goes on from the checkpoint."""
    pending = pending_question(snapshot)
    if pending is None:
        return await run(None)
    task_id, question = pending
    command = answer_command(question, answer)
    before = await held_answers(saver, snapshot, task_id)
    try:
        return await run(command)
    except Exception:
        # Whatever ended the stage (a refusal, or a failure the command is retried for or given up on),
        # the question is put back as it was: a retry brings its answer again, a new answer is taken.
        # An upsert: RESUME is one of the special channels the checkpointer keeps one write of per task.
        await saver.aput_writes(snapshot.config, [(RESUME, before)], task_id)
        raise
