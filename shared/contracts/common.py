"""Vocabulary shared by commands, events and the HTTP API."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1

Action = Literal["summarize", "inquire", "compare", "audit"]
ACTIONS: tuple[str, ...] = get_args(Action)
DocType = Literal["company_policy", "regulatory_source", "knowledge_base"]
Visibility = Literal["private", "tenant"]
Confidence = Literal["high", "medium", "low"]


def utcnow() -> datetime:
    return datetime.now(UTC)


class Contract(BaseModel):
    """Base of every wire model: unknown fields are rejected so typos fail loudly."""

    model_config = ConfigDict(extra="forbid")


class Envelope(Contract):
    """Fields every bus message carries (SPEC §4)."""

    schema_version: Literal[1] = SCHEMA_VERSION
    run_id: uuid.UUID = Field(default_factory=uuid.uuid4)
    tenant_id: uuid.UUID
    user_id: str = Field(min_length=1, max_length=200, description="User id or customer subject.")
    issued_at: datetime = Field(default_factory=utcnow)
