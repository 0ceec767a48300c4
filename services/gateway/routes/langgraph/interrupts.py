"""PalAssist questions in the two shapes LangGraph clients read, and their answers back.

A pending question is offered as PolicyPal's own shape (`interrupt_type`, `message`, `options`) and,
in the same value, as the HITLRequest Agent Chat UI renders as buttons (`action_requests`,
`review_configs`). An answer (`Command(resume=…)`) may be PolicyPal's `{type, value}`, Agent Chat
UI's `{decisions: [...]}` (approve = the offered default, edit = the edited args, reject = cancel,
respond = text) or its older `[{type: accept|edit|response|ignore, args}]`, or a bare value for the
pending question (an action id, document ids, text). Edited args arrive as form strings: a string
holding a JSON list or comma-separated ids is read as the list. Every answer is then checked
against the question (shared/contracts/answers.py): one that does not fit is a 422 naming its field.
`Command(goto="__end__")` closes the question as a cancel.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from services.gateway.errors import ApiError
from shared.contracts import ANSWER_TYPE, InterruptType, Question, ResumeValue
from shared.contracts.answers import AnswerError, checked_answer

# Our question type → the HITL argument that carries the answer.
ARG = {"action_choice": "choice", "retrieval_low": "choice", "doc_choice": "document_ids", "text_input": "text"}


def _args_schema(kind: str, options: list[dict[str, Any]]) -> dict[str, Any]:
    ids = [o["id"] for o in options]
    if kind == "doc_choice":
        items: dict[str, Any] = {"type": "string", **({"enum": ids} if ids else {})}
        prop: dict[str, Any] = {"type": "array", "items": items, "minItems": 1}
    elif kind == "text_input":
        prop = {"type": "string", "minLength": 1}
    else:
        prop = {"type": "string", "enum": ids}
    return {"type": "object", "properties": {ARG[kind]: prop}, "required": [ARG[kind]]}


def _default_args(kind: str, options: list[dict[str, Any]]) -> dict[str, Any]:
    first = options[0]["id"] if options else None
    if kind == "doc_choice":
        return {"document_ids": [first] if first else []}
    if kind == "text_input":
        return {"text": ""}
    return {"choice": first}


def offered(value: dict[str, Any]) -> dict[str, Any]:
    """The interrupt value clients see: ours plus, for PalAssist questions, the HITLRequest."""
    kind = value.get("interrupt_type")
    if kind not in ARG:
        return dict(value)  # escalation: a human agent answers it, not the client
    options = value.get("options") or []
    choices = "; ".join(f"{o['id']} = {o['label']}" for o in options)
    description = f"{value['message']}\n\nOptions: {choices}" if choices else value["message"]
    # Approving needs a sensible default; a free answer (text, documents to name) can only be edited.
    decisions = ["approve", "edit", "reject"] if options else ["edit", "reject"]
    return {
        **value,
        "action_requests": [{"name": kind, "args": _default_args(kind, options), "description": description}],
        "review_configs": [
            {"action_name": kind, "allowed_decisions": decisions, "args_schema": _args_schema(kind, options)}
        ],
    }


def _unquoted(value: Any) -> Any:
    """An edit form's field as its text: a string that holds a JSON string is that string."""
    if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            decoded = json.loads(value)
        except ValueError:
            return value
        return decoded if isinstance(decoded, str) else value
    return value


def _edited_args(kind: str, args: Any, where: str) -> Any:
    """The answer inside edited args: a dict, or a string holding one (forms send strings)."""
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            args = None
    if not isinstance(args, dict) or ARG[kind] not in args:
        raise ApiError(422, "validation_error", f"{where}.{ARG[kind]} is required", {"field": f"{where}.{ARG[kind]}"})
    return _unquoted(args[ARG[kind]])


def _from_decision(
    kind: InterruptType, options: list[dict[str, Any]], decision: Any, where: str
) -> tuple[ResumeValue, str]:
    """One decision of Agent Chat UI: LangChain's HITL (`approve`, `edit` with `edited_action`, `reject`
    with an optional `message`, which PolicyPal does not keep) or the older HumanResponse (`accept`,
    `edit` with `args.args`, `response` with text in `args`, `ignore`). Returns the answer and the
    field its value came from."""
    kinds = ("approve", "accept", "edit", "reject", "ignore", "respond", "response")
    if not isinstance(decision, dict) or decision.get("type") not in kinds:
        raise ApiError(
            422, "validation_error", f"{where}.type must be one of {', '.join(kinds)}", {"field": f"{where}.type"}
        )
    verb = decision["type"]
    if verb in ("reject", "ignore"):
        return ResumeValue(type="cancel"), where
    if verb in ("approve", "accept"):
        if not options:
            raise ApiError(422, "validation_error", f"a {kind} question has no default to approve; edit it instead")
        return ResumeValue(type=ANSWER_TYPE[kind], value=_default_args(kind, options)[ARG[kind]]), where
    if verb in ("respond", "response"):
        text = decision.get("args", decision.get("message"))
        return ResumeValue(type=ANSWER_TYPE[kind], value=_unquoted(text)), f"{where}.args"
    edited = decision.get("edited_action", decision.get("args"))
    where = f"{where}.edited_action.args" if "edited_action" in decision else f"{where}.args.args"
    args = edited.get("args") if isinstance(edited, dict) else None
    return ResumeValue(type=ANSWER_TYPE[kind], value=_edited_args(kind, args, where)), f"{where}.{ARG[kind]}"


def _client_answer(kind: InterruptType, options: list[dict[str, Any]], resume: Any) -> tuple[ResumeValue, str]:
    """The answer as sent, before it is checked against the question, and the field it is in."""
    if isinstance(resume, dict) and "decisions" in resume:
        decisions = resume["decisions"]
        if not isinstance(decisions, list) or len(decisions) != 1:
            raise ApiError(422, "validation_error", "command.resume.decisions must hold exactly one decision")
        return _from_decision(kind, options, decisions[0], "command.resume.decisions[0]")
    if isinstance(resume, list):  # the older HumanResponse list
        if len(resume) != 1:
            raise ApiError(422, "validation_error", "command.resume must hold exactly one response")
        return _from_decision(kind, options, resume[0], "command.resume[0]")
    if isinstance(resume, dict) and "type" in resume:
        try:
            answer = ResumeValue.model_validate(resume)
        except ValidationError as exc:
            raise ApiError(422, "validation_error", f"command.resume: {exc.errors()[0]['msg']}") from exc
        if answer.type == "human_answer":
            raise ApiError(403, "forbidden", "only a human agent answers an escalated ticket")
        return answer, "command.resume.value"
    return ResumeValue(type=ANSWER_TYPE[kind], value=resume), "command.resume"


def resume_value(pending: dict[str, Any], resume: Any) -> ResumeValue:
    """Translate a client's `Command(resume=…)` into the answer the pending question expects, checked
    against the question (422 naming the field when it does not fit)."""
    kind = pending.get("interrupt_type")
    if kind not in ARG:
        raise ApiError(409, "not_answerable", "this question is answered by a human agent, not by the client")
    options = pending.get("options") or []
    answer, where = _client_answer(kind, options, resume)
    question = Question(interrupt_type=kind, message=pending["message"], options=options or None)
    try:
        return checked_answer(question, answer)
    except AnswerError as exc:
        field = where if exc.field == "value" else f"command.resume.{exc.field}"
        raise ApiError(422, "validation_error", f"{field}: {exc.reason}", {"field": field}) from None


def cancel_answer(pending: dict[str, Any]) -> ResumeValue:
    """`Command(goto=END)` ("Mark as resolved"): the pending question is closed as a cancel."""
    if pending.get("interrupt_type") not in ARG:
        raise ApiError(409, "not_answerable", "this question is answered by a human agent, not by the client")
    return ResumeValue(type="cancel")
