"""OpenAI and OpenAI-compatible servers (vLLM, Ollama, LM Studio, llama.cpp) through the official client.

The client's own retries are off: the LLM service retries, so that every attempt is visible
in one place and the backoff is the same for every provider. What differs between servers is
handled here, on the wire (docs/model-servers.md): the structured-output mode the service asks
for, `stream_options` that some servers refuse (dropped and remembered per model), and usage
that some servers do not report (counted here, and marked as counted).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import openai
from openai.types.chat import ChatCompletionChunk
from pydantic import BaseModel

from shared.config import Settings
from shared.llm.failures import Failure
from shared.llm.prompts import Prompt
from shared.llm.providers.base import Completion
from shared.llm.structured import StructuredMode, schema_instruction, strict_schema

# Words in a refusal that name the request feature refused. llama-cpp-python answers an unknown
# response_format type with a 500 whose body is its validation error, so the status alone cannot tell.
_FEATURES = {"response_format": "response_format", "json_schema": "response_format", "stream_options": "stream_options"}
_FEATURE_STATUSES = {400, 415, 422, 500, 501}
# Characters per token when a server reports no usage: the usual estimate for English text.
CHARS_PER_TOKEN = 4


def estimated_tokens(text: str) -> int:
    return max(1, len(text) // CHARS_PER_TOKEN) if text else 0


def wire_messages(prompt: Prompt, system_role: bool = True) -> list[dict[str, str]]:
    """The prompt's messages as sent; without `system_role`, the system text opens the first user
    message instead (some chat formats drop system messages without a word)."""
    messages = [m.model_dump() for m in prompt.messages]
    if system_role or not messages or messages[0]["role"] != "system" or len(messages) < 2:
        return messages
    system, first, *rest = messages
    return [{**first, "content": f"{system['content']}\n\n{first['content']}"}, *rest]


def _with_schema(messages: list[dict[str, str]], schema: type[BaseModel]) -> list[dict[str, str]]:
    """The messages with the schema stated at the end of the last one: for servers that do not
    enforce it. Appended rather than sent as a message of its own, because chat templates such as
    Gemma's refuse two user turns in a row."""
    messages = list(messages)
    last = messages[-1]
    messages[-1] = {**last, "content": f"{last['content']}\n\n{schema_instruction(schema)}"}
    return messages


class OpenAIProvider:
    name = "openai"

    def __init__(self, settings: Settings) -> None:
        self._client = openai.AsyncOpenAI(
            api_key=settings.openai_api_key,
            base_url=settings.openai_base_url,
            timeout=settings.llm_timeout_s,
            max_retries=0,
        )
        self._no_stream_options: set[str] = set()  # models whose server refused stream_options
        self._system_role = settings.llm_system_prompt == "system"

    def classify(self, exc: BaseException) -> Failure | None:
        # Mid-stream, the client's transport errors arrive unwrapped.
        if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException):
            return Failure("transient", timed_out=True)
        if isinstance(exc, openai.APIConnectionError | httpx.TransportError):
            return Failure("transient")
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            text = f"{exc.message} {exc.body}".lower()
            feature = next((name for word, name in _FEATURES.items() if word in text), None)
            if feature and status in _FEATURE_STATUSES:
                return Failure("unsupported", feature, status)
            if (status == 429 and "insufficient_quota" not in text) or status >= 500:
                return Failure("transient", status=status)
            return Failure("refused", status=status)
        if isinstance(exc, openai.APIResponseValidationError):
            return Failure("invalid_output")
        if isinstance(exc, openai.APIError):
            return Failure("transient")
        return None

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
        extra: dict[str, Any] = {}
        messages = wire_messages(prompt, self._system_role)
        if schema is not None and mode == "json_schema":
            extra["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema.__name__, "schema": strict_schema(schema), "strict": True},
            }
        elif schema is not None:
            messages = _with_schema(messages, schema)
            if mode == "json_object":
                # `schema` is llama.cpp's extension (a grammar); OpenAI ignores it, the prompt states it anyway.
                extra["response_format"] = {"type": "json_object", "schema": strict_schema(schema)}
        if streamed:
            # Servers go on writing an answer nobody waits for, unless it is a stream that was closed.
            done: Completion | None = None
            async for piece in self._streamed(model, messages, temperature, max_tokens, extra):
                done = piece if isinstance(piece, Completion) else done
            assert done is not None  # _streamed always ends with its Completion
            return done
        # Messages are our own {role, content} dicts, sent as the stream path sends them (`_open_stream`).
        args: dict[str, Any] = dict(model=model, messages=messages, temperature=temperature, max_tokens=max_tokens)
        response = await self._client.chat.completions.create(**args, **extra)
        choice = response.choices[0] if response.choices else None
        text = (choice.message.content if choice and choice.message else None) or ""
        usage = response.usage
        return Completion(
            text=text,
            model=response.model or model,
            input_tokens=usage.prompt_tokens if usage else estimated_tokens(" ".join(m["content"] for m in messages)),
            output_tokens=usage.completion_tokens if usage else estimated_tokens(text),
            finish_reason=choice.finish_reason if choice else None,
            usage_reported=usage is not None,
        )

    async def _open_stream(
        self, model: str, messages: list[dict[str, str]], temperature: float, max_tokens: int, extra: dict[str, Any]
    ) -> openai.AsyncStream[ChatCompletionChunk]:
        """The chunk stream, asking for usage unless this model's server refused `stream_options`."""
        args: dict[str, Any] = dict(
            model=model, messages=messages, temperature=temperature, max_tokens=max_tokens, **extra
        )
        if model not in self._no_stream_options:
            try:
                return await self._client.chat.completions.create(
                    **args, stream=True, stream_options={"include_usage": True}
                )
            except openai.APIStatusError as exc:
                failure = self.classify(exc)
                if failure is None or failure.feature != "stream_options":
                    raise
                self._no_stream_options.add(model)
        return await self._client.chat.completions.create(**args, stream=True)

    def stream(
        self, task: str, model: str, prompt: Prompt, *, temperature: float, max_tokens: int
    ) -> AsyncIterator[str | Completion]:
        return self._streamed(model, wire_messages(prompt, self._system_role), temperature, max_tokens, {})

    async def _streamed(
        self, model: str, messages: list[dict[str, str]], temperature: float, max_tokens: int, extra: dict[str, Any]
    ) -> AsyncIterator[str | Completion]:
        chunks = await self._open_stream(model, messages, temperature, max_tokens, extra)
        try:
            async for piece in self._read(model, messages, chunks):
                yield piece
        finally:  # closed however the reader stops: the server stops writing for nobody
            await chunks.close()

    async def _read(
        self, model: str, messages: list[dict[str, str]], chunks: openai.AsyncStream[ChatCompletionChunk]
    ) -> AsyncIterator[str | Completion]:
        parts: list[str] = []
        final = Completion(text="", model=model, usage_reported=False)
        finish: str | None = None
        async for chunk in chunks:
            for choice in chunk.choices or []:
                delta = choice.delta.content if choice.delta else None
                finish = choice.finish_reason or finish
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
            elif chunk.model and not final.usage_reported:
                final = Completion(text="", model=chunk.model, usage_reported=final.usage_reported)
        text = "".join(parts)
        if final.usage_reported:
            yield Completion(text, final.model, final.input_tokens, final.output_tokens, finish)
        else:
            # No usage from this server: one streamed chunk is one token on llama.cpp, vLLM and Ollama;
            # the prompt is estimated from its length.
            prompt_chars = " ".join(m["content"] for m in messages)
            yield Completion(text, final.model, estimated_tokens(prompt_chars), len(parts), finish, False)
