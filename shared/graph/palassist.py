"""PalAssist: a node asks the user a question and goes on with the answer, or ends the turn.

`ask` pauses the run in LangGraph's `interrupt()` with a typed `Question` (the stage worker
publishes it as the `interrupt` event) and returns the `ResumeValue` the run is resumed with. A
`cancel` answer comes back as `Cancelled`, whose update is the one way a cancelled question ends a
turn: at format_response, with the context's feedback after a short acknowledgement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langgraph.types import Command, interrupt

from shared.contracts import InterruptOption, InterruptType, Question, ResumeValue
from shared.graph.topology import FORMAT_NODE

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
    return ResumeValue.model_validate(interrupt(question.model_dump(mode="json")))


def ask(
    kind: InterruptType, message: str, options: Sequence[InterruptOption] | None = None, *, on_cancel: str
) -> ResumeValue | Cancelled:
    """Ask the user; a `cancel` answer becomes `Cancelled(on_cancel)`."""
    answer = wait_for(kind, message, options)
    return Cancelled(on_cancel) if answer.type == "cancel" else answer
