"""What the LLM service needs from a provider."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel

from shared.llm.prompts import Prompt


@dataclass(frozen=True)
class Completion:
    text: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0


class Provider(Protocol):
    name: str
    # Exceptions worth retrying (rate limits, 5xx, timeouts, dropped connections).
    transient: tuple[type[BaseException], ...]

    async def complete(
        self, task: str, model: str, prompt: Prompt, *, temperature: float, schema: type[BaseModel] | None
    ) -> Completion:
        """One answer; with `schema`, its text is JSON meant to validate against it."""
        ...

    def stream(self, task: str, model: str, prompt: Prompt, *, temperature: float) -> AsyncIterator[str | Completion]:
        """Text deltas as they are generated, then one final `Completion` carrying the usage."""
        ...
