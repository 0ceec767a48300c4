"""Which model does which task (docs/architecture.md §9): the PolicyPal hybrid of a small and a large model.

Routine, high-volume tasks run on the small model; audit and holistic comparison, where
reasoning across long context decides quality, run on the large one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from shared.config import Settings

Task = Literal[
    "intent",
    "doc_resolution",
    "query_rewrite",
    "summarize",
    "inquire",
    "compare_focused",
    "compare_holistic",
    "audit",
    "contextualize",
    "grade_confidence",
    "conversation_summary",
    "title",
]
TASKS: tuple[str, ...] = get_args(Task)


@dataclass(frozen=True)
class TaskProfile:
    tier: Literal["small", "large"]
    temperature: float


MODEL_MAP: dict[str, TaskProfile] = {
    "intent": TaskProfile("small", 0.0),
    "doc_resolution": TaskProfile("small", 0.0),
    "query_rewrite": TaskProfile("small", 0.0),
    "summarize": TaskProfile("small", 0.3),
    "inquire": TaskProfile("small", 0.2),
    "compare_focused": TaskProfile("small", 0.2),
    "compare_holistic": TaskProfile("large", 0.3),
    "audit": TaskProfile("large", 0.0),
    "contextualize": TaskProfile("small", 0.0),
    "grade_confidence": TaskProfile("small", 0.0),
    "conversation_summary": TaskProfile("small", 0.2),
    "title": TaskProfile("small", 0.3),
}


def model_for(task: str, settings: Settings) -> str:
    profile = MODEL_MAP[task]
    return settings.llm_large_model if profile.tier == "large" else settings.llm_small_model
