"""The offline engine as a provider: deterministic, extractive, no model weights beyond MiniLM."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

from pydantic import BaseModel

from shared.llm.failures import Failure
from shared.llm.offline.tasks import HANDLERS
from shared.llm.prompts import Prompt
from shared.llm.providers.base import Completion
from shared.llm.structured import StructuredMode

OFFLINE_ENGINE = "offline-extractive"
_PIECES = re.compile(r"\S+\s*")
WORDS_PER_DELTA = 8


class OfflineProvider:
    name = OFFLINE_ENGINE

    def __init__(self, delta_interval_s: float = 0.0) -> None:
        self.delta_interval_s = delta_interval_s

    def classify(self, exc: BaseException) -> Failure | None:
        return None  # the engine has no server: anything it raises is a bug

    async def complete(
        self,
        task: str,
        model: str,
        prompt: Prompt,
        *,
        temperature: float,
        max_tokens: int = 0,
        schema: type[BaseModel] | None = None,
        mode: StructuredMode | None = None,
        streamed: bool = False,
    ) -> Completion:
        output = await HANDLERS[task](prompt.inputs)
        text = output.model_dump_json() if isinstance(output, BaseModel) else output
        return Completion(text=text, model=OFFLINE_ENGINE)

    async def stream(
        self, task: str, model: str, prompt: Prompt, *, temperature: float, max_tokens: int = 0
    ) -> AsyncIterator[str | Completion]:
        """The composed text in small word groups, the way a generative model would emit it."""
        completion = await self.complete(task, model, prompt, temperature=temperature, schema=None)
        words = _PIECES.findall(completion.text)
        for start in range(0, len(words), WORDS_PER_DELTA):
            if start and self.delta_interval_s:
                await asyncio.sleep(self.delta_interval_s)
            yield "".join(words[start : start + WORDS_PER_DELTA])
        yield completion
