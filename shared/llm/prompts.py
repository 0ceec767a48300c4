"""Chat messages for generative providers, rendered from a task's typed inputs.

Every prompt starts with the same system prefix, byte for byte, so providers that cache
prompt prefixes (OpenAI does from 1024 tokens) reuse it across tasks and tenants; whatever
varies (task instructions, then inputs) comes after it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from shared.actions import action_specs, action_tasks
from shared.llm import schemas

SYSTEM_PREFIX = (
    "You are PolicyPal, an assistant for compliance and policy work. You answer only from the "
    "documents and passages you are given. Every factual sentence you write cites its passage "
    "as [n], using the passage numbers exactly as given. If the passages do not contain the "
    "answer, say so plainly; never invent facts, numbers, document names or sources. Be precise "
    "and brief, use the documents' own terms, and keep requirements' modality (must, shall, may)."
)

GENERAL_KNOWLEDGE_LABEL = "General knowledge, not from your documents:"

PIPELINE_INSTRUCTIONS: dict[str, str] = {
    "doc_resolution": (
        "Decide which of the user's documents the message refers to: titles named (even misspelt), or "
        "references to documents of earlier turns ('it', 'that regulation', 'both'). Return their ids; when "
        "several documents fit equally, return them as candidates instead and confidence low."
    ),
    "query_rewrite": (
        "Rewrite the user's request as one standalone search query for the documents: keep the topic words, "
        "resolve references from the history, drop instructions and politeness."
    ),
    "contextualize": (
        "Rewrite the customer's latest question so it stands alone without the conversation: resolve 'it', "
        "'that' and similar from the history. Return only the question."
    ),
    "title": "Write a title of at most six words for a conversation that starts with this message.",
    "conversation_summary": (
        "Update the running summary of this conversation with the new turns: which documents were used, what "
        "was asked and concluded. At most 120 words."
    ),
    "grade_confidence": (
        "Grade from 0 to 1 how fully and faithfully the answer is supported by the retrieved passages "
        "(their cosine similarities are given). An answer about something the knowledge base never mentions "
        "(listed as unmentioned), or that gives a quantity or a name the passages about it do not state (unstated), "
        "is not supported."
    ),
}


def intent_instruction() -> str:
    """The intent task's instruction names every action of the table, in its order."""
    named = [spec.intent_description for spec in action_specs()]
    return (
        f"Classify what the user wants: {', '.join(named[:-1])}, or {named[-1]}. 'Summarize X about Y' is "
        "inquire. List every action requested; confidence is high when one action is clearly asked, low when "
        "several are or it is unclear. web_search is true when the user asks about recent, current or "
        "still-valid information."
    )


def instruction(task: str) -> str:
    """What the model is asked to do for `task`, after the shared system prefix."""
    if task == "intent":
        return intent_instruction()
    return PIPELINE_INSTRUCTIONS.get(task) or action_tasks()[task].instruction


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant"]
    content: str


class Prompt(BaseModel):
    """What one model call receives: the rendered messages and the inputs they came from."""

    inputs: BaseModel
    messages: list[ChatMessage] = Field(default_factory=list)


def render_passages(passages: list[schemas.Passage]) -> str:
    return "\n\n".join(
        f"[{p.n}] {p.document}" + (f", page {p.page}" if p.page else "") + f"\n{p.text}" for p in passages
    )


def _profile_line(profile: schemas.Profile) -> str:
    return (
        f"The user works in: {profile.describe()}. Say whose rules apply to them where the passages differ by "
        "place or sector, and point out what matters there."
    )


def _user_content(inputs: BaseModel) -> str:
    if isinstance(inputs, schemas.AnswerInputs) and inputs.mode == "no_documents":
        return (
            f"Request: {inputs.query}\n\nThe user has not uploaded any documents. Answer briefly from general "
            f"knowledge, and begin with exactly: “{GENERAL_KNOWLEDGE_LABEL}”"
        )
    if isinstance(inputs, schemas.AnswerInputs):
        parts = [f"Request: {inputs.query}"]
        if inputs.focus:
            parts.append(f"Focus topic: {inputs.focus}")
        if inputs.profile.describe():
            parts.append(_profile_line(inputs.profile))
        parts.append(f"Aim for about {inputs.sentences} sentences per answer or section.")
        parts.append("Passages:\n\n" + (render_passages(inputs.passages) or "(none)"))
        return "\n\n".join(parts)
    if isinstance(inputs, schemas.AuditInputs):
        heading = (
            "Requirements (check that the target documents satisfy each):"
            if inputs.themes_are == "requirements"
            else "Statements of the audited text (check each against the rules in the target documents):"
        )
        blocks = [heading + "\n" + "\n".join(f"T{i + 1}. {t}" for i, t in enumerate(inputs.themes))]
        if inputs.profile.describe():
            blocks.insert(0, _profile_line(inputs.profile))
        for target in inputs.targets:
            evidence = "\n\n".join(
                f"For T{i + 1}:\n{render_passages(passages) or '(nothing found)'}"
                for i, passages in enumerate(target.evidence)
            )
            blocks.append(f"Target document {target.document} (id {target.document_id}):\n{evidence}")
        return "\n\n".join(blocks)
    return inputs.model_dump_json(indent=1)


def build_prompt(task: str, inputs: BaseModel) -> Prompt:
    return Prompt(
        inputs=inputs,
        messages=[
            ChatMessage(role="system", content=f"{SYSTEM_PREFIX}\n\nTask: {instruction(task)}"),
            ChatMessage(role="user", content=_user_content(inputs)),
        ],
    )
