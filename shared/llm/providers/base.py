"""What the LLM service needs from a provider."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel

from shared.llm.failures import Failure
from shared.llm.prompts import Prompt
from shared.llm.structured import StructuredMode


@dataclass(frozen=True)
class Completion:
    text: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    # "length" when the answer hit max_tokens (a structured answer then is cut JSON).
    finish_reason: str | None = None
    # False when the server reported no usage and the tokens were counted here (docs/model-servers.md).
    usage_reported: bool = True


class Provider(Protocol):
    name: str

    def classify(self, exc: BaseException) -> Failure | None:
        """The failure `exc` stands for, or None when it is not the provider's (a bug: let it surface)."""
        ...

    async def complete(
        self,
        task: str,
        model: str,
        prompt: Prompt,
        *,
        temperature: float,
        max_tokens: int,
        schema: type[BaseModel] | None,
        mode: StructuredMode | None = None,
        streamed: bool = False,
    ) -> Completion:
        """One answer; with `schema`, its text is JSON meant to validate against it, asked for in `mode`.
        `streamed`: received as a stream, so that a caller that stops waiting also stops the server."""
        ...

    def stream(
        self, task: str, model: str, prompt: Prompt, *, temperature: float, max_tokens: int
    ) -> AsyncIterator[str | Completion]:
        """Text deltas as they are generated, then one final `Completion` carrying the usage."""
        ...
