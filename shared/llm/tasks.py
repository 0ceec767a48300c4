"""Which model does which task (docs/architecture.md §9): the PolicyPal hybrid of a small and a large model.

Routine, high-volume tasks run on the small model; audit and holistic comparison, where
reasoning across long context decides quality, run on the large one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from shared.actions import Derived
from shared.config import Settings


@dataclass(frozen=True)
class TaskProfile:
    tier: Literal["small", "large"]
    temperature: float
    # The answer's token cap: model output is untrusted, and a model that never stops must not hold a
    # turn. Structured answers are a few dozen tokens; prose answers are capped again by
    # PP_LLM_MAX_OUTPUT_TOKENS.
    max_tokens: int


# The tasks of the pipeline itself; each action's own tasks are in its record (shared/actions).
PIPELINE_TASKS: dict[str, TaskProfile] = {
    "intent": TaskProfile("small", 0.0, 64),
    "doc_resolution": TaskProfile("small", 0.0, 256),
    "query_rewrite": TaskProfile("small", 0.0, 64),
    "contextualize": TaskProfile("small", 0.0, 128),
    "grade_confidence": TaskProfile("small", 0.0, 48),
    "conversation_summary": TaskProfile("small", 0.2, 320),
    "title": TaskProfile("small", 0.3, 32),
}
MODEL_MAP: Mapping[str, TaskProfile] = Derived(
    PIPELINE_TASKS, lambda task: TaskProfile(task.tier, task.temperature, task.max_tokens)
)

# What each task does, in the words of a status line ("Understanding your request: …").
TASK_LABELS: Mapping[str, str] = Derived(
    {
        "intent": "Understanding your request",
        "doc_resolution": "Finding the documents you meant",
        "query_rewrite": "Preparing the search",
        "contextualize": "Understanding your question",
        "grade_confidence": "Checking the answer",
        "conversation_summary": "Summarizing the conversation",
        "title": "Naming the conversation",
    },
    lambda task: task.label,
)


def model_for(task: str, settings: Settings) -> str:
    profile = MODEL_MAP[task]
    return settings.llm_large_model if profile.tier == "large" else settings.llm_small_model


def max_tokens_for(task: str, settings: Settings) -> int:
    return min(MODEL_MAP[task].max_tokens, settings.llm_max_output_tokens)
