"""What went wrong with a model call, in the terms the LLM service acts on (docs/model-servers.md).

A provider turns its client's exceptions into a `Failure`; the service decides from its kind
alone: `transient` (rate limit, 5xx, timeout, dropped connection) is retried with backoff,
`unsupported` (the server refused a request feature such as `response_format`) steps down to
what the server accepts, `refused` (bad key, unknown model, prompt too long) is final at once.
None of them reaches a user as it came: the server's body stays in the log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FailureKind = Literal["transient", "unsupported", "refused", "invalid_output", "slow"]

# The user-facing wording of each kind; never the server's own text.
REASONS: dict[str, str] = {
    "transient": "the model server did not answer in time",
    "unsupported": "the model server does not support this request",
    "refused": "the model server refused the request",
    "invalid_output": "the model's answer was not usable",
    # Not a failure of the server: at its measured pace the step would overrun its time budget.
    "slow": "the model would take too long for this step",
}


@dataclass(frozen=True)
class Failure:
    kind: FailureKind
    # The request feature the server refused (`response_format`, `stream_options`), for `unsupported`.
    feature: str | None = None
    status: int | None = None
    # A transient failure that was a wait for a slow server, not a flaky one: asking again would
    # only repeat the wait, so it is not retried (docs/model-servers.md).
    timed_out: bool = False

    @property
    def retryable(self) -> bool:
        return self.kind == "transient" and not self.timed_out


class ModelError(RuntimeError):
    """A model call failed for good: retries exhausted, a refusal, or output that never validated.

    `str()` is safe to show (the kind's reason and the task); the provider's error is the cause.
    """

    def __init__(self, task: str, kind: FailureKind, detail: str = "") -> None:
        self.task = task
        self.kind = kind
        self.detail = detail
        super().__init__(f"{task}: {REASONS[kind]}" + (f" ({detail})" if detail else ""))
