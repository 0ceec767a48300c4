"""OpenAI and OpenAI-compatible servers (vLLM, Ollama, LiteLLM, llama.cpp) through the official client.

The client's own retries are off: the LLM service retries, so that every attempt is visible
in one place and the backoff is the same for every provider.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import openai
from pydantic import BaseModel

from shared.config import Settings
from shared.llm.prompts import Prompt
from shared.llm.providers.base import Completion


def strict_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of `schema` in the form OpenAI's strict structured output accepts."""

    def close(node: Any) -> Any:
        if isinstance(node, dict):
            node = {k: close(v) for k, v in node.items() if k not in ("default", "title")}
            if node.get("type") == "object" and "properties" in node:
                node["additionalProperties"] = False
                node["required"] = list(node["properties"])
            return node
        if isinstance(node, list):
            return [close(v) for v in node]
        return node

    return close(schema.model_json_schema())


class OpenAIProvider:
    name = "openai"
    transient: tuple[type[BaseException], ...] = (
        openai.RateLimitError,
        openai.InternalServerError,
        openai.APITimeoutError,
        openai.APIConnectionError,
    )

    def __init__(self, settings: Settings) -> None:
        self._client = openai.AsyncOpenAI(
            api_key=settings.openai_api_key,
            base_url=settings.openai_base_url,
            timeout=settings.llm_timeout_s,
            max_retries=0,
        )

    async def complete(
        self, task: str, model: str, prompt: Prompt, *, temperature: float, schema: type[BaseModel] | None
    ) -> Completion:
        extra: dict[str, Any] = {}
        if schema is not None:
            extra["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema.__name__, "schema": strict_schema(schema), "strict": True},
            }
        response = await self._client.chat.completions.create(
            model=model,
            messages=[m.model_dump() for m in prompt.messages],
            temperature=temperature,
            **extra,
        )
        usage = response.usage
        return Completion(
            text=response.choices[0].message.content or "",
            model=response.model or model,
            input_tokens=usage.prompt_tokens if usage else 0,
            output_tokens=usage.completion_tokens if usage else 0,
        )

    async def stream(
        self, task: str, model: str, prompt: Prompt, *, temperature: float
    ) -> AsyncIterator[str | Completion]:
        chunks = await self._client.chat.completions.create(
            model=model,
            messages=[m.model_dump() for m in prompt.messages],
            temperature=temperature,
            stream=True,
            stream_options={"include_usage": True},
        )
        parts: list[str] = []
        final = Completion(text="", model=model)
        async for chunk in chunks:
            for choice in chunk.choices:
                delta = choice.delta.content if choice.delta else None
                if delta:
                    parts.append(delta)
                    yield delta
            if chunk.usage:
                final = Completion(
                    text="",
                    model=chunk.model or model,
                    input_tokens=chunk.usage.prompt_tokens,
                    output_tokens=chunk.usage.completion_tokens,
                )
        yield Completion("".join(parts), final.model, final.input_tokens, final.output_tokens)
