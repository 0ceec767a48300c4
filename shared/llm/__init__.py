"""Language-model tasks through one service (docs/architecture.md §9); without an API key, the offline engine."""

from shared.llm.failures import ModelError
from shared.llm.prompts import ChatMessage, Prompt, build_prompt
from shared.llm.providers.offline import OFFLINE_ENGINE
from shared.llm.service import CallScope, LLMService, build_provider
from shared.llm.tasks import MODEL_MAP

__all__ = [
    "MODEL_MAP",
    "OFFLINE_ENGINE",
    "CallScope",
    "ChatMessage",
    "LLMService",
    "ModelError",
    "Prompt",
    "build_prompt",
    "build_provider",
]
