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

import logging
import time
from dataclasses import dataclass

from pydantic import BaseModel

from shared.config import Settings
from shared.llm import schemas
from shared.llm.failures import ModelError
from shared.llm.lessons import LessonBook
from shared.llm.prompts import Prompt, build_prompt
from shared.llm.providers.base import Completion, Provider
from shared.llm.structured import schema_instruction
from shared.llm.tasks import PIPELINE_TASKS

log = logging.getLogger(__name__)

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
# Models being measured in this process: the workers of one process start together.
_MEASURING: set[str] = set()


def tokens_in(text: str) -> int:
    return max(1, len(text) // CHARS_PER_TOKEN) if text else 0


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

    def deadline(self, task: str) -> float | None:
        """When a step's answer is no longer waited for (and its stream closed): its budget."""
        budget = self.settings.llm_step_budget_s
        return budget if task in PIPELINE_TASKS and budget > 0 else None

    def overran(self, task: str, started: float) -> bool:
        """A streamed answer still going at one and a half times its budget is ended where it is."""
        budget = self.settings.llm_answer_budget_s
        return budget > 0 and task not in PIPELINE_TASKS and time.monotonic() - started > 1.5 * budget

    def fit(
        self, task: str, model: str, prompt: Prompt, schema: type[BaseModel] | None, cap: int
    ) -> tuple[Prompt, int]:
        """The prompt to send and its token cap; ModelError("slow") for a step that cannot fit."""
        cap = min(cap, _needed_tokens(prompt.inputs) or cap)
        pace = self.pace.pace(model)
        step = task in PIPELINE_TASKS
        budget = self.settings.llm_step_budget_s if step else self.settings.llm_answer_budget_s
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
        if schema is not None and expected > self.settings.llm_timeout_s:  # cut-short JSON is no answer
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

    async def measure(self, provider: Provider, model: str, key: str) -> None:
        """Before any turn needs it: the pace of a short real prompt (a conversation title), streamed."""
        if key in _MEASURING or self.pace.pace(key) is not None:
            return
        _MEASURING.add(key)
        prompt = build_prompt("title", schemas.TitleInputs(message="How long are customer records kept?"))
        started, first_s, parts = time.monotonic(), 0.0, 0
        try:
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
            _MEASURING.discard(key)
