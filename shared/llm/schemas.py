"""Typed inputs and outputs of the model tasks.

A node builds a task's inputs; `prompts` renders them into chat messages for generative
providers, and the offline engine computes from the inputs directly. Answers of the
generative tasks are prose in which `[n]` cites passage n of the inputs.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Action = Literal["summarize", "inquire", "compare", "audit"]
Confidence = Literal["high", "medium", "low"]


class Passage(BaseModel):
    """One retrieved chunk as the model sees it: `[n]` in an answer points here."""

    n: int
    document_id: str
    document: str = Field(description='Display name, "Title (Version)".')
    page: int | None = None
    text: str


class IntentInputs(BaseModel):
    message: str
    history: list[str] = Field(default_factory=list, description="Earlier user messages, oldest first.")


class IntentOutput(BaseModel):
    actions: list[Action] = Field(min_length=1)
    confidence: Confidence
    web_search: bool = False


class DocResolutionInputs(BaseModel):
    message: str
    action: str | None = None
    registry: dict[str, str] = Field(
        default_factory=dict, description='Documents of earlier turns, {"Title (Version)": id}, oldest first.'
    )
    library: dict[str, str] = Field(default_factory=dict, description='The user\'s documents, {id: "Title (Version)"}.')
    strict: bool = Field(False, description="Only near-verbatim names count (questions mention topics, not titles).")


class DocCandidate(BaseModel):
    id: str
    title: str


class DocResolutionOutput(BaseModel):
    ids: list[str] = Field(default_factory=list)
    candidates: list[DocCandidate] = Field(default_factory=list, description="Equally likely documents.")
    source: Literal["explicit", "inferred", "fuzzy_match", "none"] = "none"
    confidence: Confidence = "low"


class RewriteInputs(BaseModel):
    query: str
    action: str = "inquire"
    history: list[str] = Field(default_factory=list)


class RewriteOutput(BaseModel):
    query: str = Field(min_length=1)


class ContextualizeInputs(BaseModel):
    question: str
    history: list[str] = Field(default_factory=list, description="Earlier turns, oldest first, 'role: text'.")


class TitleInputs(BaseModel):
    message: str


class TextOutput(BaseModel):
    text: str = Field(min_length=1)


class ConversationSummaryInputs(BaseModel):
    previous_summary: str = ""
    messages: list[str] = Field(description="Turns to fold into the summary, 'role: text'.")


class GradeInputs(BaseModel):
    question: str
    answer: str
    similarities: list[float] = Field(default_factory=list, description="Cosine similarity of each passage used.")


class GradeOutput(BaseModel):
    score: float = Field(ge=0.0, le=1.0)


class AnswerInputs(BaseModel):
    """Evidence for summarize, inquire and compare."""

    query: str
    passages: list[Passage]
    focus: str = Field("", description="Compare: the topic to compare on; empty for a holistic comparison.")
    sentences: int = Field(4, ge=1, description="Extent: sentences per answer, or per document section.")
    floor: float = Field(0.0, description="Similarity below which a sentence is not worth citing.")
    audience: str = Field("", description="The user's industry, location and company (profile), for relevance.")


class AuditTarget(BaseModel):
    document_id: str
    document: str
    evidence: list[list[Passage]] = Field(description="Per requirement (same order), the target's best passages.")


class AuditInputs(BaseModel):
    requirements: list[str] = Field(min_length=1)
    targets: list[AuditTarget] = Field(min_length=1)
    match_floor: float = Field(0.35, description="Similarity from which a passage addresses a requirement.")


class AuditFinding(BaseModel):
    target_doc_id: str
    target_doc_title: str
    theme: str
    severity: Literal["Critical", "High", "Medium", "Low"]
    issue: str
    consequence: str
    source_quote: str
    target_quote: str = ""
    suggestion: str
    confidence_score: float = Field(ge=0.0, le=1.0)
    passage: int | None = Field(None, description="n of the passage the target quote comes from.")


class AuditOutput(BaseModel):
    findings: list[AuditFinding]
    similarities: list[float] = Field(default_factory=list, description="Best match per requirement and target.")
