"""How fast a model answers here, measured from its own calls, and what fits a turn's time budget.

A turn is a few short structured steps (intent, document resolution, the search query, a title)
and one answer. On a hosted model every step takes about a second; a small model on a shared CPU
reads a prompt at tens of tokens a second, and one answer over eight passages took most of a
minute (docs/model-servers.md). Instead of a list of slow models, the service measures each one:
seconds per prompt token and per output token, smoothed over recent calls and kept in the lessons
file (the next process starts knowing). Before a call it estimates the seconds the call can take
(its prompt, and its token cap as the worst case) and:

- a step that would overrun `PP_LLM_STEP_BUDGET_S` is done by the offline engine, without asking;
- an answer is fitted into `PP_LLM_ANSWER_BUDGET_S`: its cap lowered to half the budget, its
  passages shortened (each keeps its opening, every document stays represented) to the rest.

Until a model has been measured, nothing is assumed: its first call is made as asked.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel

from shared.config import Settings
from shared.llm import schemas
from shared.llm.failures import ModelError
from shared.llm.lessons import LessonBook
from shared.llm.prompts import ChatMessage, Prompt, build_prompt
from shared.llm.providers.base import Completion, Provider
from shared.llm.structured import schema_instruction
from shared.llm.tasks import PIPELINE_TASKS

log = logging.getLogger(__name__)
T = TypeVar("T")

# Characters per token for estimates before a call: the usual figure for English text.
CHARS_PER_TOKEN = 4
# Weight of the newest call in the smoothed pace: load on a shared machine changes within minutes.
NEWEST = 0.5
# A measured pace is a lesson for a day; load and hardware change.
REMEMBERED_S = 86400.0
# What an answer keeps whatever the budget: a few sentences, and a passage's opening words.
MIN_ANSWER_TOKENS = 64
MIN_PASSAGE_CHARS = 240
FINDING_TOKENS = 320
# Models being measured in this process (the workers of one process start together), each with the
# event its measurement sets when done.
_MEASURING: dict[str, asyncio.Event] = {}
# The first request a server answers after it started pays for loading the model's weights into memory:
# seconds, taken as reading the prompt, and a pace several times too slow (docs/model-servers.md).
WARM_UP = Prompt(inputs=schemas.TitleInputs(message="Hello"), messages=[ChatMessage(role="user", content="Hello")])


def tokens_in(text: str) -> int:
    return max(1, len(text) // CHARS_PER_TOKEN) if text else 0


def log_call(task: str, mode: str | None, completion: Completion, seconds: float) -> None:
    """One line per real model call (the offline engine's are none): where a turn's time goes
    (docs/model-servers.md measures from these)."""
    log.info(
        "model call %s%s: %d prompt + %d output tokens%s in %.1f s (%s)",
        task,
        f" [{mode}]" if mode else "",
        completion.input_tokens,
        completion.output_tokens,
        "" if completion.usage_reported else " (counted)",
        seconds,
        completion.finish_reason or "?",
    )


@dataclass(frozen=True)
class Pace:
    prompt_s: float  # seconds per prompt token (prompt evaluation, prefix caching included)
    output_s: float  # seconds per generated token

    def seconds(self, prompt_tokens: int, output_tokens: int) -> float:
        return prompt_tokens * self.prompt_s + output_tokens * self.output_s


class PaceBook:
    def __init__(self, lessons: LessonBook) -> None:
        self._lessons = lessons

    def pace(self, model: str) -> Pace | None:
        known = self._lessons.pace(model)
        return Pace(*known) if known else None

    def _learn(self, model: str, prompt_s: float, output_s: float) -> None:
        old = self.pace(model)
        if old is not None:
            prompt_s = NEWEST * prompt_s + (1 - NEWEST) * old.prompt_s
            output_s = NEWEST * output_s + (1 - NEWEST) * old.output_s
        self._lessons.learn_pace(model, (prompt_s, output_s), REMEMBERED_S)

    def observe_call(self, model: str, prompt_tokens: int, output_tokens: int, seconds: float) -> None:
        """A whole answer's seconds: split with the known generation pace (a stream measures it);
        before any stream, prompt and output tokens are taken to cost the same."""
        if prompt_tokens + output_tokens <= 0 or seconds <= 0:
            return
        known = self.pace(model)
        if known is not None and output_tokens * known.output_s < seconds:
            prompt_s = (seconds - output_tokens * known.output_s) / max(1, prompt_tokens)
            self._learn(model, prompt_s, known.output_s)
        else:
            each = seconds / (prompt_tokens + output_tokens)
            self._learn(model, each, each)

    def observe_stream(
        self, model: str, prompt_tokens: int, first_s: float, output_tokens: int, seconds: float
    ) -> None:
        """A stream measures both: the wait for its first token is reading the prompt, the rest writing."""
        if prompt_tokens <= 0 or output_tokens <= 1 or seconds <= first_s:
            return
        prompt_s, output_s = first_s / prompt_tokens, (seconds - first_s) / (output_tokens - 1)
        if output_s < prompt_s:
            # Writing is never faster a token than reading (a prompt is read in batches): the server sent
            # its tokens in bursts, so the split is unknown and the whole is shared out evenly.
            prompt_s = output_s = seconds / (prompt_tokens + output_tokens)
        self._learn(model, prompt_s, output_s)


def fitted_passages(passages: list[schemas.Passage], chars: int) -> list[schemas.Passage]:
    """The passages within about `chars` characters: each shortened to an equal share at a word
    boundary, and the lowest-ranked dropped when shares would fall under MIN_PASSAGE_CHARS."""
    if sum(len(p.text) for p in passages) <= chars:
        return passages
    keep = max(1, min(len(passages), chars // MIN_PASSAGE_CHARS))
    share = max(MIN_PASSAGE_CHARS, chars // keep)
    fitted = []
    for passage in passages[:keep]:
        text = passage.text
        if len(text) > share:
            cut = text[:share]
            text = (cut[: cut.rfind(" ")] if " " in cut else cut).rstrip() + " …"
        fitted.append(passage.model_copy(update={"text": text}))
    return fitted


def _passages_of(inputs: BaseModel) -> list[schemas.Passage]:
    if isinstance(inputs, schemas.AnswerInputs):
        return inputs.passages
    if isinstance(inputs, schemas.AuditInputs):
        return [p for target in inputs.targets for theme in target.evidence for p in theme]
    return []


def _with_passages(inputs: BaseModel, chars: int) -> BaseModel:
    """`inputs` with its passages fitted into `chars` (an audit's shared among its themes and targets)."""
    if isinstance(inputs, schemas.AnswerInputs):
        return inputs.model_copy(update={"passages": fitted_passages(inputs.passages, chars)})
    if isinstance(inputs, schemas.AuditInputs):
        lists = [theme for target in inputs.targets for theme in target.evidence]
        each = chars // max(1, len(lists))
        targets = [
            t.model_copy(update={"evidence": [fitted_passages(theme, each) for theme in t.evidence]})
            for t in inputs.targets
        ]
        return inputs.model_copy(update={"targets": targets})
    return inputs


def _needed_tokens(inputs: BaseModel) -> int | None:
    """The most an answer to these inputs needs, where it grows with them: an audit writes one finding
    (quotes, issue, suggestion: about 300 tokens) per theme and target, not 2048 tokens for one theme."""
    if isinstance(inputs, schemas.AuditInputs):
        return MIN_ANSWER_TOKENS + FINDING_TOKENS * len(inputs.themes) * max(1, len(inputs.targets))
    return None


class Budget:
    """The seconds a task's call may take on its model, and the prompt and token cap that fit them."""

    def __init__(self, settings: Settings, lessons: LessonBook) -> None:
        self.settings = settings
        self.pace = PaceBook(lessons)

    def _budget(self, task: str) -> float:
        step = task in PIPELINE_TASKS
        return self.settings.llm_step_budget_s if step else self.settings.llm_answer_budget_s

    def deadline(self, task: str, structured: bool, spent: float = 0.0) -> float | None:
        """When an answer is no longer waited for (and its stream closed): what is left of its budget
        after `spent` (a corrective retry shares its task's budget). A step, and a structured answer
        (an audit: JSON cut short is no answer, so it is not fitted by its token cap); a prose answer
        is fitted instead and ended at `answer_end`."""
        budget = self._budget(task)
        if budget <= 0 or not (structured or task in PIPELINE_TASKS):
            return None
        return max(0.0, budget - spent)

    def answer_end(self, task: str, started: float) -> float | None:
        """When a streamed answer begun at `started` is ended where it is: at one and a half times its
        budget (it was fitted to the budget; the rest is for a pace that changed meanwhile)."""
        budget = self.settings.llm_answer_budget_s
        return started + 1.5 * budget if budget > 0 and task not in PIPELINE_TASKS else None

    def fit(
        self, task: str, model: str, prompt: Prompt, schema: type[BaseModel] | None, cap: int, spent: float = 0.0
    ) -> tuple[Prompt, int]:
        """The prompt to send and its token cap, in what is left of the task's budget after `spent`;
        ModelError("slow") for a step or structured answer that cannot fit."""
        cap = min(cap, _needed_tokens(prompt.inputs) or cap)
        pace = self.pace.pace(model)
        step = task in PIPELINE_TASKS
        budget = self._budget(task)
        if budget > 0 and spent >= budget:
            raise ModelError(task, "slow", f"its {budget:.0f} s were spent")
        budget -= spent
        if step and budget > 0 and pace is None and model in _MEASURING:
            # A server works one request at a time: a step queued behind the measurement would wait for it.
            raise ModelError(task, "slow", "the model is being measured")
        if pace is None or budget <= 0:
            return prompt, cap
        text = "".join(m.content for m in prompt.messages) + (schema_instruction(schema) if schema else "")
        prompt_tokens = tokens_in(text)
        if step:
            expected = pace.seconds(prompt_tokens, cap)
            if expected > budget:
                raise ModelError(task, "slow", f"about {expected:.0f} s at this model's measured pace")
            return prompt, cap
        if schema is None:  # prose can stop anywhere: at most half the budget goes to writing it
            cap = max(MIN_ANSWER_TOKENS, min(cap, int(budget / 2 / pace.output_s)))
        sent = self._shortened(task, prompt, prompt_tokens, (budget - cap * pace.output_s) / pace.prompt_s, budget)
        said = "".join(m.content for m in sent.messages) + (schema_instruction(schema) if schema else "")
        expected = pace.seconds(tokens_in(said), cap)
        if schema is not None and expected > budget:  # cut-short JSON is no answer: not asked for
            raise ModelError(task, "slow", f"about {expected:.0f} s at this model's measured pace")
        return sent, cap

    @staticmethod
    def _shortened(task: str, prompt: Prompt, prompt_tokens: int, room: float, budget: float) -> Prompt:
        """The prompt with its passages shortened to `room` prompt tokens (those read in the budget's rest)."""
        passages = _passages_of(prompt.inputs)
        if prompt_tokens <= room or not passages:
            return prompt
        excess_chars = int(prompt_tokens - max(0.0, room)) * CHARS_PER_TOKEN
        chars = max(0, sum(len(p.text) for p in passages) - excess_chars)
        # Rebuilt from the fitted inputs; what came after them (a corrective turn) is kept.
        rebuilt = build_prompt(task, _with_passages(prompt.inputs, chars)).messages
        log.info("%s: passages fitted to %d characters for a %.0f s budget", task, chars, budget)
        return prompt.model_copy(update={"messages": [*rebuilt, *prompt.messages[len(rebuilt) :]]})

    async def settled(self, task: str, model: str) -> float:
        """An answer asked while its model is being measured waits for the measurement, so that it is
        fitted (queued behind it on a one-request server, it would wait as long anyway), for at most half
        its budget: the other half is left to answer in. Returns the seconds waited, which the answer's
        budget has spent."""
        measured = _MEASURING.get(model)
        budget = self.settings.llm_answer_budget_s
        if measured is None or task in PIPELINE_TASKS or budget <= 0:
            return 0.0
        started = time.monotonic()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(budget / 2):
                await measured.wait()
        return time.monotonic() - started

    def measure(self, provider: Provider, model: str, key: str) -> asyncio.Task[None] | None:
        """Before any turn needs it, unless known or under way: the pace of a short real prompt (a
        conversation title), streamed, after one token of warm-up that pays for the server's cold
        start. Marked as under way at once, so an answer asked from now on waits for it."""
        if key in _MEASURING or self.pace.pace(key) is not None:
            return None
        _MEASURING[key] = asyncio.Event()
        return asyncio.get_running_loop().create_task(self._measured(provider, model, key))

    async def _measured(self, provider: Provider, model: str, key: str) -> None:
        prompt = build_prompt("title", schemas.TitleInputs(message="How long are customer records kept?"))
        try:
            await provider.complete("title", model, WARM_UP, temperature=0.0, max_tokens=1, schema=None, streamed=True)
            started, first_s, parts = time.monotonic(), 0.0, 0
            async for piece in provider.stream("title", model, prompt, temperature=0.0, max_tokens=16):
                if isinstance(piece, Completion):
                    self.pace.observe_stream(key, piece.input_tokens, first_s, parts, time.monotonic() - started)
                    log.info("measured %s: %s", model, self.pace.pace(key))
                elif not parts:
                    first_s, parts = time.monotonic() - started, 1
                else:
                    parts += 1
        except Exception as exc:  # a model that cannot be reached now is measured by the first turn instead
            log.warning("measuring %s failed: %s", model, exc)
        finally:
            _MEASURING.pop(key).set()


async def within(task: str, pieces: AsyncIterator[T], end: float | None) -> AsyncIterator[T]:
    """`pieces` until the monotonic time `end`, then ModelError("slow"): a stream that stalls (a server
    still reading the prompt, or busy with another request) is ended as surely as one that runs on."""
    while True:
        try:
            async with asyncio.timeout(None if end is None else max(0.0, end - time.monotonic())):
                piece = await anext(pieces)
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise ModelError(task, "slow", "answer cut at its budget") from None
        yield piece
