"""The one way nodes call models (docs/architecture.md §9): routing, retries, structured output, usage and cost.

`structured`, `generate` and `stream` take a task name (routed by MODEL_MAP to a model and a
temperature) and a `Prompt`. Transient provider errors are retried with exponential backoff;
a structured answer that does not validate gets one corrective retry that shows the model its
error. Every call is written to the `usage` ledger with its tokens and cost, and a
non-streaming call that a run already made (a node re-run by LangGraph on resume) is answered
from the ledger instead of being paid for twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from shared.config import Settings
from shared.db import usage as ledger
from shared.db.pool import Database, tenant_tx
from shared.llm.pricing import cost_usd
from shared.llm.prompts import ChatMessage, Prompt
from shared.llm.providers.base import Completion, Provider
from shared.llm.providers.offline import OFFLINE_ENGINE, OfflineProvider
from shared.llm.tasks import MODEL_MAP, model_for
from shared.telemetry.spans import model_call, record_usage

log = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")


class ModelError(RuntimeError):
    """A model call failed for good: retries exhausted, or output that never validated."""


@dataclass(frozen=True)
class CallScope:
    """Whose call this is, for the usage ledger; without it a call is not accounted (tests, tools)."""

    tenant_id: str
    user_id: str | None = None
    thread_id: str | None = None
    run_id: str | None = None

    @classmethod
    def of(cls, state: dict[str, Any]) -> CallScope:
        return cls(state["tenant_id"], state.get("user_id"), state.get("thread_id"), state.get("run_id"))


def _parse_json(text: str) -> Any:
    """Servers without strict structured output sometimes wrap JSON in a code fence."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.strip("`").removeprefix("json").strip()
    return json.loads(stripped)


def build_provider(settings: Settings) -> Provider:
    wants_openai = settings.llm_provider == "openai" or (
        settings.llm_provider == "auto" and bool(settings.openai_api_key)
    )
    if not wants_openai:
        return OfflineProvider(settings.offline_delta_interval_s)
    if not settings.openai_api_key:
        raise ValueError("PP_LLM_PROVIDER=openai needs OPENAI_API_KEY (any value for servers without auth)")
    from shared.llm.providers.openai import OpenAIProvider

    return OpenAIProvider(settings)


class LLMService:
    def __init__(self, settings: Settings, provider: Provider, db: Database | None = None) -> None:
        self.settings = settings
        self.provider = provider
        self._db = db

    @property
    def offline(self) -> bool:
        return self.provider.name == OFFLINE_ENGINE

    def engine(self, task: str) -> str:
        """What answered, for the response's `engine` field."""
        return OFFLINE_ENGINE if self.offline else f"{self.provider.name}:{model_for(task, self.settings)}"

    def _model(self, task: str) -> str:
        return OFFLINE_ENGINE if self.offline else model_for(task, self.settings)

    async def _with_retries(self, call: Callable[[], Awaitable[R]], task: str) -> R:
        attempts = self.settings.llm_retries + 1
        for attempt in range(attempts):
            try:
                return await call()
            except self.provider.transient as exc:
                if attempt == attempts - 1:
                    raise ModelError(f"{task}: model unavailable after {attempts} attempts: {exc}") from exc
                delay = self.settings.llm_backoff_s * 2**attempt
                log.warning("%s: transient model error (%s); retry %d in %.2fs", task, exc, attempt + 1, delay)
                await asyncio.sleep(delay)
            except Exception as exc:  # a refused request (auth, bad model name): retrying cannot help
                raise ModelError(f"{task}: model request failed: {exc}") from exc
        raise AssertionError("unreachable")

    async def _complete(self, task: str, prompt: Prompt, schema: type[BaseModel] | None) -> Completion:
        model = self._model(task)
        temperature = MODEL_MAP[task].temperature
        with model_call(task, self.provider.name, model) as span:
            completion = await self._with_retries(
                lambda: self.provider.complete(task, model, prompt, temperature=temperature, schema=schema), task
            )
            record_usage(span, completion.model, completion.input_tokens, completion.output_tokens)
        return completion

    @staticmethod
    def _request_hash(task: str, prompt: Prompt) -> str:
        body = json.dumps([task, prompt.inputs.model_dump(mode="json"), [m.model_dump() for m in prompt.messages]])
        return hashlib.sha256(body.encode()).hexdigest()

    async def _recorded(self, scope: CallScope | None, key: str) -> str | None:
        if self._db is None or scope is None or scope.run_id is None:
            return None
        async with tenant_tx(self._db, scope.tenant_id, scope.user_id) as conn:
            return await ledger.recorded_output(conn, scope.run_id, key)

    async def _account(
        self, scope: CallScope | None, task: str, completions: list[Completion], key: str | None, output: str | None
    ) -> None:
        if self._db is None or scope is None:
            return
        async with tenant_tx(self._db, scope.tenant_id, scope.user_id) as conn:
            for i, c in enumerate(completions):
                last = i == len(completions) - 1
                await ledger.record_usage(
                    conn,
                    scope.tenant_id,
                    ledger.UsageRow(
                        user_id=scope.user_id,
                        thread_id=scope.thread_id,
                        run_id=scope.run_id,
                        task=task,
                        model=c.model,
                        input_tokens=c.input_tokens,
                        output_tokens=c.output_tokens,
                        cost_usd=cost_usd(c.model, c.input_tokens, c.output_tokens, self.settings),
                        request_hash=key if last else None,
                        output=output if last else None,
                    ),
                )

    async def structured(self, task: str, schema: type[T], prompt: Prompt, *, scope: CallScope | None = None) -> T:
        key = self._request_hash(task, prompt)
        recorded = await self._recorded(scope, key)
        if recorded is not None:
            return schema.model_validate_json(recorded)
        completions = [await self._complete(task, prompt, schema)]
        try:
            result = schema.model_validate(_parse_json(completions[0].text))
        except (ValueError, ValidationError) as exc:
            log.warning("%s: malformed structured output (%s); one corrective retry", task, exc)
            corrective = prompt.model_copy(
                update={
                    "messages": [
                        *prompt.messages,
                        ChatMessage(role="assistant", content=completions[0].text),
                        ChatMessage(
                            role="user",
                            content=f"That answer was not valid for the required JSON schema: {exc}. "
                            "Reply again with only JSON that matches the schema.",
                        ),
                    ]
                }
            )
            completions.append(await self._complete(task, corrective, schema))
            try:
                result = schema.model_validate(_parse_json(completions[-1].text))
            except (ValueError, ValidationError) as again:
                await self._account(scope, task, completions, None, None)
                raise ModelError(
                    f"{task}: structured output still invalid after a corrective retry: {again}"
                ) from again
        await self._account(scope, task, completions, key, result.model_dump_json())
        return result

    async def generate(self, task: str, prompt: Prompt, *, scope: CallScope | None = None) -> str:
        key = self._request_hash(task, prompt)
        recorded = await self._recorded(scope, key)
        if recorded is not None:
            return recorded
        completion = await self._complete(task, prompt, None)
        await self._account(scope, task, [completion], key, completion.text)
        return completion.text

    async def stream(self, task: str, prompt: Prompt, *, scope: CallScope | None = None) -> AsyncIterator[str]:
        """Text deltas as the model produces them. A transient failure is retried only until the
        first delta has been handed on; after that a restart would repeat text already shown."""
        model = self._model(task)
        temperature = MODEL_MAP[task].temperature
        attempts = self.settings.llm_retries + 1
        for attempt in range(attempts):
            emitted = False
            try:
                with model_call(task, self.provider.name, model) as span:
                    async for piece in self.provider.stream(task, model, prompt, temperature=temperature):
                        if isinstance(piece, Completion):
                            record_usage(span, piece.model, piece.input_tokens, piece.output_tokens)
                            await self._account(scope, task, [piece], None, None)
                            return
                        emitted = True
                        yield piece
                return
            except self.provider.transient as exc:
                if emitted or attempt == attempts - 1:
                    raise ModelError(f"{task}: model stream failed: {exc}") from exc
                delay = self.settings.llm_backoff_s * 2**attempt
                log.warning("%s: transient stream error (%s); retry %d in %.2fs", task, exc, attempt + 1, delay)
                await asyncio.sleep(delay)
