"""What an answer to each kind of PalAssist question must be, checked in one place for the gateway
(a 422 naming the field) and for the stage that takes the answer (an `error` event, never an
exception in a worker).

Clients send list fields in whatever shape their forms produce: a list, one id, a string that
holds a JSON list (Agent Chat UI's edit form sends `{"document_ids": "[\"<uuid>\", …]"}`), or
comma-separated ids. `checked_answer` accepts all of them and returns the one canonical
`ResumeValue` the graph's nodes read: an offered option id for a choice, a list of canonical
document ids (or `["all"]`) for `doc_choice`, stripped text for a text answer.

Two answers may also tag documents and sets, as the composer's @-mentions do (feature spec: PalAssist
text answers use the chat input, with its @-mentions): a `text_input` answer
`{"text", "document_ids", "set_ids"}`, and a `retrieval_low` answer
`{"choice": "tag_docs", "document_ids", "set_ids"}` (the documents picked after "📄 Tag specific
documents"). Without mentions they stay the plain text or option id; `tagged_answer` reads both.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from shared.contracts.commands import ANSWER_TYPE, ResumeValue
from shared.contracts.events import Question

ALL_OFFERED = "all"
MAX_TEXT = 8000
MAX_DOCUMENTS = 20
# Documents tagged one by one in one answer, as in one message (ChatCommand.tagged_doc_ids); sets are scopes.
MAX_TAGGED_DOCUMENTS = 5
MAX_TAGGED_SETS = 20
TAG_CHOICE = "tag_docs"  # the retrieval_low option whose answer names the documents picked


class AnswerError(ValueError):
    """An answer that does not fit its question. `field` is where it went wrong, relative to the
    answer (`type` or `value`); `reason` is written for the person who answered."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


def listed_ids(raw: Any) -> list[str]:
    """Ids as clients send a list field: a list of strings, a JSON list in a string, or one string
    of comma-separated ids. Empty items are dropped; order is kept, repeats removed."""
    items: Any = raw
    if isinstance(raw, str):
        text = raw.strip()
        if text.startswith("["):
            try:
                items = json.loads(text)
            except ValueError:
                raise AnswerError("value", "is not a valid JSON list of document ids") from None
        else:
            items = text.split(",")
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise AnswerError("value", "must be a list of document ids")
    return list(dict.fromkeys(item.strip() for item in items if item.strip()))


def _document_ids(question: Question, raw: Any) -> list[str]:
    ids = listed_ids(raw)
    if not ids:
        raise AnswerError("value", "must name at least one document")
    if len(ids) > MAX_DOCUMENTS:
        raise AnswerError("value", f"may name at most {MAX_DOCUMENTS} documents")
    offered = [option.id for option in question.options or []]
    if offered:
        unknown = [doc_id for doc_id in ids if doc_id.lower() not in offered]
        if unknown:
            raise AnswerError("value", f"{unknown[0]!r} is not one of the offered documents")
        ids = [doc_id.lower() for doc_id in ids]
        return [ALL_OFFERED] if ALL_OFFERED in ids else ids
    canonical = []
    for doc_id in ids:
        try:
            canonical.append(str(uuid.UUID(doc_id)))
        except ValueError:
            raise AnswerError("value", f"{doc_id[:80]!r} is not a document id") from None
    return canonical


def _text(raw: Any) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise AnswerError("value", "must be a non-empty text")
    if len(raw) > MAX_TEXT:
        raise AnswerError("value", f"must be at most {MAX_TEXT} characters")
    return raw.strip()


@dataclass(frozen=True)
class TaggedAnswer:
    """A checked text or choice answer as a node reads it: the text (or option id) and what it tags."""

    text: str
    document_ids: list[str] = field(default_factory=list)
    set_ids: list[str] = field(default_factory=list)

    @property
    def tags(self) -> bool:
        return bool(self.document_ids or self.set_ids)


def tagged_answer(value: Any) -> TaggedAnswer:
    """A canonical `text_input` or `retrieval_low` answer value (plain, or with mentions) read as one shape."""
    if isinstance(value, dict):
        return TaggedAnswer(
            text=value.get("text") or value.get("choice") or "",
            document_ids=list(value.get("document_ids") or []),
            set_ids=list(value.get("set_ids") or []),
        )
    return TaggedAnswer(text=str(value or ""))


def _uuids(raw: Any, where: str, most: int, what: str) -> list[str]:
    try:
        ids = listed_ids(raw if raw is not None else [])
    except AnswerError as exc:
        raise AnswerError(f"value.{where}", exc.reason) from None
    if len(ids) > most:
        raise AnswerError(f"value.{where}", f"may tag at most {most} {what} one by one")
    canonical = []
    for item in ids:
        try:
            canonical.append(str(uuid.UUID(item)))
        except ValueError:
            raise AnswerError(f"value.{where}", f"{item[:80]!r} is not an id") from None
    return canonical


def _mentions(raw: dict[str, Any], known: set[str]) -> dict[str, Any]:
    """The tagged ids of an answer that carries mentions; unknown keys are refused."""
    extra = set(raw) - known - {"document_ids", "set_ids"}
    if extra:
        raise AnswerError(f"value.{sorted(extra)[0]}", "is not a field of this answer")
    tagged = {
        "document_ids": _uuids(raw.get("document_ids"), "document_ids", MAX_TAGGED_DOCUMENTS, "documents"),
        "set_ids": _uuids(raw.get("set_ids"), "set_ids", MAX_TAGGED_SETS, "sets"),
    }
    return tagged


def _tagged_text(raw: Any) -> str | dict[str, Any]:
    if not isinstance(raw, dict):
        return _text(raw)
    tagged = _mentions(raw, {"text"})
    try:
        text = _text(raw.get("text"))
    except AnswerError as exc:
        raise AnswerError("value.text", exc.reason) from None
    return {"text": text, **tagged} if tagged["document_ids"] or tagged["set_ids"] else text


def _tagged_choice(question: Question, raw: Any) -> str | dict[str, Any]:
    if not isinstance(raw, dict):
        return _choice(question, raw)
    tagged = _mentions(raw, {"choice"})
    if raw.get("choice") != TAG_CHOICE or TAG_CHOICE not in [o.id for o in question.options or []]:
        raise AnswerError("value.choice", f"documents can be tagged only with the offered '{TAG_CHOICE}' option")
    if not tagged["document_ids"] and not tagged["set_ids"]:
        raise AnswerError("value", "must tag at least one document or set")
    return {"choice": TAG_CHOICE, **tagged}


def _choice(question: Question, raw: Any) -> str:
    offered = [option.id for option in question.options or []]
    if not isinstance(raw, str) or raw.strip() not in offered:
        raise AnswerError("value", f"must be one of {', '.join(offered)}")
    return raw.strip()


def checked_answer(question: Question, answer: ResumeValue) -> ResumeValue:
    """The answer in the shape the question's node reads, or `AnswerError` saying what is wrong."""
    kind = question.interrupt_type
    if answer.type == "cancel":
        if kind == "escalation":  # the customer waits for a person; nobody cancels that question for them
            raise AnswerError("type", "an escalation is answered by a human agent's answer, not cancelled")
        return ResumeValue(type="cancel")
    expected = ANSWER_TYPE[kind]
    if answer.type != expected:
        raise AnswerError("type", f"a {kind} question is answered with type '{expected}' or 'cancel'")
    if kind == "doc_choice":
        value: Any = _document_ids(question, answer.value)
    elif kind == "text_input":
        value = _tagged_text(answer.value)
    elif kind == "escalation":
        value = _text(answer.value)
    elif kind == "retrieval_low":
        value = _tagged_choice(question, answer.value)
    else:
        value = _choice(question, answer.value)
    return ResumeValue(type=expected, value=value)
