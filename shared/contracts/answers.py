"""What an answer to each kind of PalAssist question must be, checked in one place for the gateway
(a 422 naming the field) and for the stage that takes the answer (an `error` event, never an
exception in a worker).

Clients send list fields in whatever shape their forms produce: a list, one id, a string that
holds a JSON list (Agent Chat UI's edit form sends `{"document_ids": "[\"<uuid>\", …]"}`), or
comma-separated ids. `checked_answer` accepts all of them and returns the one canonical
`ResumeValue` the graph's nodes read: an offered option id for a choice, a list of canonical
document ids (or `["all"]`) for `doc_choice`, stripped text for a text answer.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from shared.contracts.commands import ANSWER_TYPE, ResumeValue
from shared.contracts.events import Question

ALL_OFFERED = "all"
MAX_TEXT = 8000
MAX_DOCUMENTS = 20


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
    elif kind in ("text_input", "escalation"):
        value = _text(answer.value)
    else:
        value = _choice(question, answer.value)
    return ResumeValue(type=expected, value=value)
