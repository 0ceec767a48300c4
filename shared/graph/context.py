"""What nodes may use besides their state: passed as LangGraph runtime context, never checkpointed."""

from __future__ import annotations

from dataclasses import dataclass

from shared.bus.connection import Bus
from shared.config import Settings
from shared.db.pool import Database
from shared.llm.service import LLMService


@dataclass
class StageContext:
    settings: Settings
    bus: Bus
    db: Database
    llm: LLMService
