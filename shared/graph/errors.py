"""The errors a stage reports to the user as an `error` event instead of retrying its command.

Anything else a stage raises is a fault of the system (a bug, a service down) and goes to the
delivery policy: redelivered, and dead-lettered when it keeps failing.
"""

from __future__ import annotations


class UserFacingError(Exception):
    """A problem with the request itself: reported as an `error` event, not retried."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class InvalidRequest(UserFacingError):
    """A request, or an answer to a question, that cannot be carried out as given (too many
    documents, a choice that was not offered): the user changes it, a retry would not."""

    def __init__(self, message: str) -> None:
        super().__init__("invalid_request", message)
