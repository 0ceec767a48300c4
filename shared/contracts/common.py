"""Vocabulary shared by commands, events and the HTTP API."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, GetJsonSchemaHandler, field_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from shared.actions import action_names

# LangGraph's checkpoint ids are UUIDs (version 6, time-ordered).
CHECKPOINT_ID = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"

SCHEMA_VERSION: Literal[1] = 1


def known_action(value: str) -> str:
    """An action of the table (shared/actions), checked when a message is read, not when it is defined."""
    names = action_names()
    if value not in names:
        raise ValueError(f"Input should be one of {', '.join(repr(n) for n in names)}")
    return value


class ActionsEnum:
    """The JSON schema of an action (AsyncAPI, OpenAPI, a model's structured output): the table's names."""

    def __get_pydantic_json_schema__(self, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return {"enum": list(action_names()), "type": "string"}


Action = Annotated[str, AfterValidator(known_action), ActionsEnum()]
DocType = Literal["company_policy", "regulatory_source", "knowledge_base"]
Visibility = Literal["private", "tenant"]
Confidence = Literal["high", "medium", "low"]
# Who wrote a turn's answer: the model, the support answer cache, or a human agent (escalation).
AnsweredBy = Literal["model", "cache", "human"]
# The kinds of PalAssist question a run can stop on, and the kinds of answer that resume it.
InterruptType = Literal["action_choice", "doc_choice", "text_input", "retrieval_low", "escalation"]
ResumeType = Literal["doc_choice", "text_input", "action_choice", "retrieval_choice", "human_answer", "cancel"]
# The messages a run writes to the UI history; each one's id derives from the run and its kind.
MessageKind = Literal["user", "assistant", "pal_assist", "pal_assist_cancelled", "escalation"]


def utcnow() -> datetime:
    return datetime.now(UTC)


def contains_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(contains_nul(k) or contains_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(contains_nul(v) for v in value)
    return False


class Contract(BaseModel):
    """Base of every wire model: unknown fields are rejected so typos fail loudly, and NUL
    characters (which Postgres text and jsonb cannot store) are refused at the boundary."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        if contains_nul(value):
            raise ValueError("must not contain NUL (\\u0000) characters")
        return value


class Envelope(Contract):
    """Fields every bus message carries (docs/architecture.md §4)."""

    schema_version: Literal[1] = SCHEMA_VERSION
    run_id: uuid.UUID = Field(default_factory=uuid.uuid4)
    tenant_id: uuid.UUID
    user_id: str = Field(min_length=1, max_length=200, description="User id or customer subject.")
    issued_at: datetime = Field(default_factory=utcnow)
