"""The one way nodes call models (docs/architecture.md §9): routing, retries, structured output, usage and cost.

`structured`, `generate` and `stream` take a task name (routed by MODEL_MAP to a model, a
temperature and a token cap) and a `Prompt`. What a server answers is handled by kind
(docs/model-servers.md): transient failures are retried with exponential backoff; a refused
structured-output mode steps down to the next one the server may accept (remembered per model);
a structured answer that does not parse or validate gets one corrective retry that shows the
model its error, and is then checked against its inputs (`grounding`). A task whose model
cannot give a usable answer is done by the offline engine instead, and `notice` tells the user
so: a turn never dies of its model. Every call is written to the `usage` ledger with its tokens
and cost, and a non-streaming call that a run already made (a node re-run by LangGraph on
resume) is answered from the ledger instead of being paid for twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from shared.config import Settings
from shared.db import usage as ledger
from shared.db.pool import Database, tenant_tx
from shared.llm.failures import REASONS, ModelError
from shared.llm.grounding import grounded
from shared.llm.lessons import LessonBook
from shared.llm.offline import intent_model
from shared.llm.pace import Budget, log_call, within
from shared.llm.pricing import cost_usd
from shared.llm.prompts import ChatMessage, Prompt
from shared.llm.providers.base import Completion, Provider
from shared.llm.providers.offline import OFFLINE_ENGINE, OfflineProvider
from shared.llm.structured import FormatBook, parse_json
from shared.llm.tasks import MODEL_MAP, TASK_LABELS, max_tokens_for, model_for
from shared.telemetry.spans import model_call, record_usage

log = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)
# How much of a validation error the corrective retry shows the model.
ERROR_SHOWN_CHARS = 600
STOPPED_MID_ANSWER = "The model stopped mid-answer, so this answer may be incomplete."
# The tasks the offline engine did instead of the model in the current stage. Only a stage sets it,
# and a stage runs in its own asyncio task with its own copy of the context (shared/graph/runner.py),
# so what one stage records never reaches another.
_STOOD_IN: ContextVar[tuple[str, ...]] = ContextVar("stood_in", default=())

__all__ = ["CallScope", "LLMService", "ModelError", "build_provider"]


@dataclass(frozen=True)
class CallScope:
    """Whose call this is, for the usage ledger; without it a call is not accounted (tests, tools)."""

    tenant_id: str
    user_id: str | None = None
    thread_id: str | None = None
    run_id: str | None = None

    @classmethod
    def of(cls, state: Mapping[str, Any]) -> CallScope:
        return cls(state["tenant_id"], state.get("user_id"), state.get("thread_id"), state.get("run_id"))


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


def fallback_notice(task: str, error: ModelError) -> str:
    """The status line a user sees when the offline engine stood in: the reason's kind, never the server's text."""
    return f"{TASK_LABELS[task]}: {REASONS[error.kind]}, so PolicyPal's built-in engine did this step instead."


class LLMService:
    def __init__(
        self,
        settings: Settings,
        provider: Provider,
        db: Database | None = None,
        notice: Callable[[str], None] | None = None,
    ) -> None:
        self.settings = settings
        self.provider = provider
        self._db = db
        self._notice = notice or (lambda message: None)
        self._lessons = LessonBook.shared(settings.llm_lessons_file)
        self._formats = FormatBook(settings.llm_structured_output, self._lessons)
        self._budget = Budget(settings, self._lessons)
        self._standby = OfflineProvider()
        self._down_until: dict[str, float] = {}  # model → monotonic time until which it is skipped
        self._warming: set[asyncio.Task[None]] = set()

    def warm_up_soon(self) -> None:
        """Measure each model's pace in the background before a turn needs it (shared/llm/pace.py):
        with lessons kept, and only what they do not know yet."""
        if self.offline or self.settings.llm_lessons_file is None:
            return
        for model in {self.settings.llm_small_model, self.settings.llm_large_model}:
            task = self._budget.measure(self.provider, model, self._lesson_key(model))
            if task is not None:
                self._warming.add(task)
                task.add_done_callback(self._warming.discard)

    @staticmethod
    async def prepare_standby() -> None:
        """The offline engine ready to read intents (its classifier fitted off the event loop), so that
        neither it nor a stand-in for the model pays for the fit inside a turn."""
        await intent_model.prepared()

    @property
    def offline(self) -> bool:
        return self.provider.name == OFFLINE_ENGINE

    def engine(self, task: str) -> str:
        """What answered, for the response's `engine` field: the offline engine when it wrote this
        task's answer; otherwise the model, naming the offline engine's tasks if it stood in for
        others in this stage ("openai:gpt-4o-mini + offline-extractive (grade_confidence)")."""
        stood_in = _STOOD_IN.get()
        if self.offline or task in stood_in:
            return OFFLINE_ENGINE
        model = f"{self.provider.name}:{model_for(task, self.settings)}"
        return f"{model} + {OFFLINE_ENGINE} ({', '.join(stood_in)})" if stood_in else model

    def _told_stand_in(self, task: str, error: ModelError) -> None:
        """The user told (a status line) and the stage's record kept, for `engine`."""
        self._notice(fallback_notice(task, error))
        if task not in _STOOD_IN.get():
            _STOOD_IN.set((*_STOOD_IN.get(), task))

    def _model(self, task: str) -> str:
        return OFFLINE_ENGINE if self.offline else model_for(task, self.settings)

    def _lesson_key(self, model: str) -> str:
        """Lessons are about a model on a server: the same name elsewhere may be another model."""
        return f"{self.settings.openai_base_url or self.provider.name} {model}"

    def _check_reachable(self, task: str, model: str) -> None:
        if time.monotonic() < self._down_until.get(model, 0.0):
            raise ModelError(task, "transient", "unreachable moments ago")

    def _backoff(self, attempt: int) -> float:
        return self.settings.llm_backoff_s * 2**attempt

    async def _complete(
        self, task: str, prompt: Prompt, schema: type[BaseModel] | None, spent: float = 0.0
    ) -> Completion:
        """One answer from the provider, in what is left of its task's budget after `spent`: transient
        failures retried, refused structured-output modes stepped down, anything else a ModelError at
        once (the server's text only in the log)."""
        model = self._model(task)
        self._check_reachable(task, model)
        key = self._lesson_key(model)
        spent += await self._budget.settled(task, key)
        sent, cap = self._budget.fit(task, key, prompt, schema, max_tokens_for(task, self.settings), spent)
        profile = MODEL_MAP[task]
        attempt = 0
        while True:
            mode = self._formats.mode(key) if schema is not None else None
            started = time.monotonic()
            deadline = None if self.offline else self._budget.deadline(task, schema is not None, spent)
            try:
                with model_call(task, self.provider.name, model) as span:
                    async with asyncio.timeout(deadline):
                        completion = await self.provider.complete(
                            task, model, sent, temperature=profile.temperature, max_tokens=cap, schema=schema,
                            mode=mode, streamed=deadline is not None,
                        )  # fmt: skip
                    record_usage(span, completion.model, completion.input_tokens, completion.output_tokens)
                seconds = time.monotonic() - started
                if not self.offline:  # the offline engine's calls are no model's: nothing to log or measure
                    log_call(task, mode, completion, seconds)
                    self._budget.pace.observe_call(key, completion.input_tokens, completion.output_tokens, seconds)
                return completion
            except TimeoutError as exc:  # the deadline, not the client's timeout: the stream was closed
                raise ModelError(task, "slow", f"cut after {deadline:.1f} s") from exc
            except Exception as exc:
                failure = self.provider.classify(exc)
                if failure is None:
                    raise
                if failure.kind == "unsupported" and mode is not None and failure.feature == "response_format":
                    weaker = self._formats.refused(key, mode)
                    if weaker is not None:
                        log.warning(
                            "%s: %s refused structured output as %s; using %s from now on", task, model, mode, weaker
                        )
                        continue
                if failure.retryable and attempt < self.settings.llm_retries:
                    log.warning("%s: transient model error (%s); retry %d", task, exc, attempt + 1)
                    await asyncio.sleep(self._backoff(attempt))
                    attempt += 1
                    continue
                if failure.kind == "transient":
                    self._down_until[model] = time.monotonic() + self.settings.llm_cooldown_s
                log.warning("%s: model call failed (%s): %s", task, failure, exc)
                raise ModelError(task, failure.kind, f"HTTP {failure.status}" if failure.status else "") from exc

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
        if self._db is None or scope is None or not completions:
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

    @staticmethod
    def _validated(task: str, schema: type[T], prompt: Prompt, completion: Completion) -> T:
        """The answer parsed, validated and grounded in the prompt's inputs; ValueError if it cannot be."""
        try:
            result = schema.model_validate(parse_json(completion.text))
        except ValueError:
            if completion.finish_reason == "length":
                raise ValueError("the answer was cut off at the token limit; reply with shorter JSON") from None
            raise
        return grounded(task, prompt.inputs, result)

    async def _from_model(self, task: str, schema: type[T], prompt: Prompt, paid: list[Completion]) -> T:
        """A valid answer from the model, with one corrective retry; every completion is added to `paid`.
        A model whose answer for this task stayed unusable moments ago is not asked again."""
        model = self._model(task)
        if self._lessons.unusable(self._lesson_key(model), task):
            raise ModelError(task, "invalid_output", "unusable moments ago")
        started = time.monotonic()
        paid.append(await self._complete(task, prompt, schema))
        try:
            return self._validated(task, schema, prompt, paid[-1])
        except ValueError as exc:
            log.warning("%s: malformed structured output (%s); one corrective retry", task, exc)
            corrective = prompt.model_copy(
                update={
                    "messages": [
                        *prompt.messages,
                        ChatMessage(role="assistant", content=paid[-1].text),
                        ChatMessage(
                            role="user",
                            content="That answer was not valid for the required JSON schema: "
                            f"{str(exc)[:ERROR_SHOWN_CHARS]}. Reply again with only JSON that matches the schema.",
                        ),
                    ]
                }
            )
        # The corrective retry shares the task's budget: a retry is no licence to wait twice as long.
        paid.append(await self._complete(task, corrective, schema, time.monotonic() - started))
        try:
            return self._validated(task, schema, prompt, paid[-1])
        except ValueError as again:
            log.warning("%s: structured output still invalid after a corrective retry: %s", task, again)
            self._lessons.learn_unusable(self._lesson_key(model), task, self.settings.llm_unusable_cooldown_s)
            raise ModelError(task, "invalid_output", "still invalid after a corrective retry") from again

    async def _stand_in(self, task: str, prompt: Prompt, error: ModelError) -> Completion:
        """The offline engine's answer for a task the model could not do, and the user told so."""
        log.warning("%s: offline engine stands in for the model (%s)", task, error)
        self._told_stand_in(task, error)
        return await self._standby.complete(task, OFFLINE_ENGINE, prompt, temperature=0.0)

    async def structured(self, task: str, schema: type[T], prompt: Prompt, *, scope: CallScope | None = None) -> T:
        key = self._request_hash(task, prompt)
        recorded = await self._recorded(scope, key)
        if recorded is not None:
            return schema.model_validate_json(recorded)
        paid: list[Completion] = []
        try:
            result = await self._from_model(task, schema, prompt, paid)
        except ModelError as exc:
            if self.offline:
                raise
            paid.append(await self._stand_in(task, prompt, exc))
            result = schema.model_validate_json(paid[-1].text)
        await self._account(scope, task, paid, key, result.model_dump_json())
        return result

    async def generate(self, task: str, prompt: Prompt, *, scope: CallScope | None = None) -> str:
        key = self._request_hash(task, prompt)
        recorded = await self._recorded(scope, key)
        if recorded is not None:
            return recorded
        paid: list[Completion] = []
        try:
            paid.append(await self._complete(task, prompt, None))
            if not paid[-1].text.strip():
                raise ModelError(task, "invalid_output", "empty answer")
        except ModelError as exc:
            if self.offline:
                raise
            paid.append(await self._stand_in(task, prompt, exc))
        await self._account(scope, task, paid, key, paid[-1].text)
        return paid[-1].text

    def _measured_stream(self, task: str, key: str, done: Completion, first_s: float, seconds: float) -> None:
        if not self.offline:
            log_call(task, "stream", done, seconds)
            self._budget.pace.observe_stream(key, done.input_tokens, first_s, done.output_tokens, seconds)

    async def stream(self, task: str, prompt: Prompt, *, scope: CallScope | None = None) -> AsyncIterator[str]:
        """Text deltas as the model produces them. A transient failure is retried only until the first
        delta has been handed on; after that (or past its time budget) the answer ends where it is and the
        user is told. A model that fails before its first delta, or says nothing, is replaced by the
        offline engine's streamed answer."""
        model, profile, attempt = self._model(task), MODEL_MAP[task], 0
        key = self._lesson_key(model)
        waited = await self._budget.settled(task, key)
        while True:
            emitted, first_s = False, 0.0
            started = time.monotonic()
            try:
                self._check_reachable(task, model)
                sent, cap = self._budget.fit(task, key, prompt, None, max_tokens_for(task, self.settings), waited)
                pieces = self.provider.stream(task, model, sent, temperature=profile.temperature, max_tokens=cap)
                with model_call(task, self.provider.name, model) as span:
                    async for piece in within(task, pieces, self._budget.answer_end(task, started - waited)):
                        if isinstance(piece, Completion):
                            if not piece.text.strip() and not self.offline:
                                raise ModelError(task, "invalid_output", "empty answer")
                            record_usage(span, piece.model, piece.input_tokens, piece.output_tokens)
                            self._measured_stream(task, key, piece, first_s, time.monotonic() - started)
                            await self._account(scope, task, [piece], None, None)
                            return
                        if not emitted:
                            emitted, first_s = True, time.monotonic() - started
                        yield piece
                return
            except ModelError as exc:
                if emitted:  # the answer so far stands (the provider's stream is closed with this generator)
                    self._notice(STOPPED_MID_ANSWER)
                    return
                failed: ModelError = exc
            except Exception as exc:
                failure = self.provider.classify(exc)
                if failure is None:
                    raise
                if emitted:
                    log.warning("%s: model stream broke off after the first delta: %s", task, exc)
                    self._notice(STOPPED_MID_ANSWER)
                    return
                if failure.retryable and attempt < self.settings.llm_retries:
                    log.warning("%s: transient stream error (%s); retry %d", task, exc, attempt + 1)
                    await asyncio.sleep(self._backoff(attempt))
                    attempt += 1
                    continue
                if failure.kind == "transient":
                    self._down_until[model] = time.monotonic() + self.settings.llm_cooldown_s
                log.warning("%s: model stream failed (%s): %s", task, failure, exc)
                failed = ModelError(task, failure.kind, f"HTTP {failure.status}" if failure.status else "")
            break
        self._told_stand_in(task, failed)
        log.warning("%s: offline engine stands in for the model's answer (%s)", task, failed)
        async for piece in self._standby.stream(task, OFFLINE_ENGINE, prompt, temperature=0.0):
            if isinstance(piece, Completion):
                await self._account(scope, task, [piece], None, None)
            else:
                yield piece
