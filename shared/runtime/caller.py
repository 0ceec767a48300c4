"""Whose request a task is serving, for code far from the command (the embedding client).

The bus consumer sets it from each command's envelope; tasks and threads started while
handling it inherit it through contextvars, so no signature in between has to carry it.
"""

from __future__ import annotations

import contextvars
import uuid
from dataclasses import dataclass


@dataclass(frozen=True)
class Caller:
    tenant_id: uuid.UUID
    user_id: str


current_caller: contextvars.ContextVar[Caller | None] = contextvars.ContextVar("current_caller", default=None)
