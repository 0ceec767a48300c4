"""PalAssist: a node asks the user a question and goes on with the answer, or ends the turn.

`ask` pauses the run in LangGraph's `interrupt()` with a typed `Question` (the stage worker
publishes it as the `interrupt` event) and returns the `ResumeValue` the run is resumed with. A
`cancel` answer comes back as `Cancelled`, whose update is the one way a cancelled question ends a
turn: at format_response, with the context's feedback after a short acknowledgement.

An answer reaches its node checked against its question (`checked_answer`, the same check the
gateway makes), so a node reads only canonical values. Should a node still fail on a value error
after it took an answer (`answer_guarded`), the failure is the answer's: the run ends with an
`invalid_answer` error and the question stays open, rather than the command being retried.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from langgraph.types import Command, interrupt

from shared.contracts import InterruptOption, InterruptType, Question, ResumeValue
from shared.contracts.answers import AnswerError, checked_answer
from shared.graph.errors import InvalidAnswer
from shared.graph.topology import FORMAT_NODE

log = logging.getLogger(__name__)

# The kind of question whose answer the running node took, while it runs (set by `wait_for`).
_answered: ContextVar[InterruptType | None] = ContextVar("palassist_answered", default=None)
# The key of a resume value that answers on a new branch (shared/graph/answering.py): the run the
# turn goes on as, which the node that took the answer writes as the state's `run_id`.
BRANCH_RUN = "branch_run_id"
_branch_run: ContextVar[str | None] = ContextVar("palassist_branch_run", default=None)

# Professional tone (feature spec, response tone): a plain statement, no "Okay,…" opening.
CANCELLED = "Request cancelled."


def end_turn(response: str) -> dict[str, Any]:
    """The update that ends the turn without an answer: format_response writes `response` as the
    reply (the later resolution nodes pass a cancelled turn through)."""
    return {"cancelled": True, "response": response}


@dataclass(frozen=True)
class Cancelled:
    """The user cancelled the question; `feedback` says what the turn still needs."""

    feedback: str

    @property
    def update(self) -> dict[str, Any]:
        """For intent_resolver and doc_resolver, which return it as their update.

        Not a `Command(goto=format_response)` from those: LangGraph follows a node's static edge as
        well as its `goto`, so the run would wait at both the next resolution node and
        format_response, and the action worker refused it (`wrong_stage`)."""
        return end_turn(f"{CANCELLED} {self.feedback}")

    def command(self) -> Command:
        """For nodes whose way on is a `goto` (validate_inputs has only conditional edges; an action
        skips its answer): straight to format_response."""
        return Command(goto=FORMAT_NODE, update=self.update)


def wait_for(kind: InterruptType, message: str, options: Sequence[InterruptOption] | None = None) -> ResumeValue:
    """Pause the run on a question; the answer it is resumed with, whatever its type."""
    question = Question(interrupt_type=kind, message=message, options=list(options) if options is not None else None)
    raw = interrupt(question.model_dump(mode="json"))
    _answered.set(kind)
    if isinstance(raw, dict) and BRANCH_RUN in raw:
        raw = dict(raw)
        _branch_run.set(raw.pop(BRANCH_RUN))
    try:
        return checked_answer(question, ResumeValue.model_validate(raw))
    except AnswerError as exc:
        raise InvalidAnswer.of(kind, exc) from None
    except ValueError:
        raise InvalidAnswer(kind, "it is not an answer of the expected shape.") from None


def ask(
    kind: InterruptType, message: str, options: Sequence[InterruptOption] | None = None, *, on_cancel: str
) -> ResumeValue | Cancelled:
    """Ask the user; a `cancel` answer becomes `Cancelled(on_cancel)`."""
    answer = wait_for(kind, message, options)
    return Cancelled(on_cancel) if answer.type == "cancel" else answer


def answer_guarded(nodes: Mapping[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """Each node wrapped so that a value error it raises after taking an answer is `InvalidAnswer`,
    and an answer given on a new branch makes the turn that branch's run (`BRANCH_RUN`)."""
    return {name: _guarded(name, node) for name, node in nodes.items()}


def _guarded(name: str, node: Callable[..., Any]) -> Callable[..., Any]:
    # functools.wraps keeps the signature LangGraph inspects to decide what to pass the node.
    @functools.wraps(node)
    async def run(*args: Any, **kwargs: Any) -> Any:
        taken, branch = _answered.set(None), _branch_run.set(None)
        try:
            result = node(*args, **kwargs)
            update = await result if inspect.isawaitable(result) else result
            return _on_branch(update, _branch_run.get())
        except (ValueError, TypeError) as exc:
            kind = _answered.get()
            if kind is None:
                raise
            log.warning("node %s failed on the answer to a %s question", name, kind, exc_info=exc)
            raise InvalidAnswer(kind, "it does not fit what this step needs. Please answer again.") from exc
        finally:
            _answered.reset(taken)
            _branch_run.reset(branch)

    return run


def _on_branch(update: Any, run_id: str | None) -> Any:
    """The node's update; answered on a new branch, with the run the turn goes on as."""
    if run_id is None:
        return update
    if isinstance(update, Command):
        return Command(
            graph=update.graph, goto=update.goto, resume=update.resume, update=_on_branch(update.update or {}, run_id)
        )
    return {**(update or {}), "run_id": run_id}
