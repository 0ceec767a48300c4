"""The errors a stage reports to the user as an `error` event instead of retrying its command.

They are the stage's kind of `BadInput` (docs/architecture.md §4): the delivery policy settles
the command at once and the stage worker's `refuse` hook ends the run with the `error` event.
Anything else a stage raises is a fault of the system (a bug, a service down) and goes to the
delivery policy: redelivered, and dead-lettered when it keeps failing.
"""

from __future__ import annotations

from shared.bus.delivery import BadInput
from shared.contracts.answers import AnswerError


class UserFacingError(BadInput):
    """A problem with the request itself: reported as an `error` event, not retried."""


class InvalidRequest(UserFacingError):
    """A request, or an answer to a question, that cannot be carried out as given (too many
    documents, a choice that was not offered): the user changes it, a retry would not."""

    def __init__(self, message: str) -> None:
        super().__init__("invalid_request", message)


class InvalidAnswer(UserFacingError):
    """An answer to a PalAssist question that the stage cannot use. The question stays open: the
    checkpoint is where it was before the answer, so the user can answer it again."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__("invalid_answer", f"That answer to the {kind} question could not be used: {reason}")

    @classmethod
    def of(cls, kind: str, error: AnswerError) -> InvalidAnswer:
        """The refusal of an answer that does not fit its question, saying which field is wrong."""
        return cls(kind, f"it {error.reason}." if error.field == "value" else f"{error.reason}.")
