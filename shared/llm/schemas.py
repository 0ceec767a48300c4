"""Typed inputs and outputs of the model tasks.

A node builds a task's inputs; `prompts` renders them into chat messages for generative
providers, and the offline engine computes from the inputs directly. Answers of the
generative tasks are prose in which `[n]` cites passage n of the inputs.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from shared.contracts.common import Action, Confidence


class Profile(BaseModel):
    """Who is asking (the onboarding answers, docs/architecture.md §7.5): every action's prompt and
    web query read it, and the offline engine ranks passages that name the user's place or trade first."""

    industry: str = ""
    location: str = ""
    company: str = ""
    description: str = ""

    def describe(self) -> str:
        """ "Banking, Malaysia, Acme Bank, Retail"; empty for an unset profile."""
        return ", ".join(v for v in (self.industry, self.location, self.company, self.description) if v)

    def places_and_trades(self) -> list[str]:
        """What a passage can name that makes it the user's rules: their location and industry."""
        return [v for v in (self.location, self.industry) if v]


class Passage(BaseModel):
    """One retrieved chunk as the model sees it: `[n]` in an answer points here."""

    n: int
    document_id: str
    document: str = Field(description='Display name, "Title (Version)".')
    page: int | None = None
    text: str
    page_breaks: list[int] = Field(
        default_factory=list, description="Offsets in `text` where later pages begin (a chunk may run over a page)."
    )
    statement_pages: list[int] = Field(
        default_factory=list, description="Its pages that title a financial statement the question names."
    )


class IntentInputs(BaseModel):
    message: str
    history: list[str] = Field(default_factory=list, description="Earlier user messages, oldest first.")


class IntentOutput(BaseModel):
    actions: list[Action] = Field(min_length=1)
    confidence: Confidence
    web_search: bool = False


class DocResolutionInputs(BaseModel):
    message: str = Field(description="The full message as typed, mention labels included (docs/architecture.md §7.2).")
    clean_query: str = Field("", description="The message without mention labels.")
    action: str | None = None
    registry: dict[str, str] = Field(
        default_factory=dict, description='Documents of earlier turns, {"Title (Version)": id}, oldest first.'
    )
    library: dict[str, str] = Field(default_factory=dict, description='The user\'s documents, {id: "Title (Version)"}.')
    doc_types: dict[str, str] = Field(default_factory=dict, description="{id: doc_type}, for typed references.")
    tagged: list[str] = Field(default_factory=list, description="Ids the user tagged; references mean others.")
    strict: bool = Field(False, description="Only near-verbatim names count (questions mention topics, not titles).")


class DocCandidate(BaseModel):
    id: str
    title: str


class DocResolutionOutput(BaseModel):
    ids: list[str] = Field(default_factory=list)
    candidates: list[DocCandidate] = Field(default_factory=list, description="Equally likely documents.")
    unresolved: list[str] = Field(default_factory=list, description="Names that match none of the documents.")
    source: Literal["explicit", "inferred", "fuzzy_match", "none"] = "none"
    confidence: Confidence = "low"


class RewriteInputs(BaseModel):
    query: str
    action: str = "inquire"
    history: list[str] = Field(default_factory=list)
    documents: list[str] = Field(default_factory=list, description="Display names of the resolved documents.")


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
    high_similarity: float = Field(0.55, description="The embedding model's high-confidence similarity.")
    unmentioned: list[str] = Field(
        default_factory=list, description="What the question names that the knowledge base never mentions."
    )
    unstated: bool = Field(
        False,
        description="The question asks a quantity (how many, much, long, often), or who or which named one, that no "
        "passage about it states.",
    )


class GradeOutput(BaseModel):
    score: float = Field(ge=0.0, le=1.0)


class AnswerInputs(BaseModel):
    """Evidence for summarize, inquire and compare."""

    query: str
    passages: list[Passage]
    focus: str = Field("", description="Compare: the topic to compare on; empty for a holistic comparison.")
    sentences: int = Field(4, ge=1, description="Extent: sentences per answer, or per document section.")
    floor: float = Field(0.0, description="Similarity below which a sentence is not worth citing.")
    profile: Profile = Field(default_factory=Profile, description="Who asks: their rules and concerns come first.")
    mode: Literal["documents", "no_documents"] = Field(
        "documents", description="no_documents: the user has none; a labelled general-knowledge answer."
    )


class AuditTarget(BaseModel):
    """A document searched during the audit, with its best passages for each theme."""

    document_id: str
    document: str
    evidence: list[list[Passage]] = Field(description="Per theme (same order), the document's best passages.")


class AuditInputs(BaseModel):
    """Themes checked against the target documents' passages.

    `requirements`: the themes are rules (pasted by the user, or from a policy used as the
    standard) and the targets are audited for them. `statements`: the themes are what the audited
    text says (an email, a policy's central sentences) and the targets hold the rules it must obey.
    """

    themes: list[str] = Field(min_length=1)
    themes_are: Literal["requirements", "statements"] = "requirements"
    targets: list[AuditTarget] = Field(min_length=1)
    match_floor: float = Field(0.35, description="Similarity from which a passage is about the theme.")
    profile: Profile = Field(default_factory=Profile, description="Who asks: the rules that bind them matter most.")


class AuditFinding(BaseModel):
    target_doc_id: str = Field(description="The document searched (the audited one, or the rules' source).")
    target_doc_title: str
    theme: str
    severity: Literal["Critical", "High", "Medium", "Low"]
    issue: str
    consequence: str
    source_quote: str = Field(description="The theme: the requirement, or the audited statement.")
    target_quote: str = Field("", description="The target document's sentence the theme was checked with.")
    suggestion: str
    confidence_score: float = Field(ge=0.0, le=1.0)
    passage: int | None = Field(None, description="n of the passage the target quote comes from.")


class AuditOutput(BaseModel):
    findings: list[AuditFinding]
    similarities: list[float] = Field(default_factory=list, description="Best match per theme and target.")
