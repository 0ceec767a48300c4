"""PalAssist questions in the two shapes LangGraph clients read, and their answers back.

A pending question is offered as PolicyPal's own shape (`interrupt_type`, `message`, `options`) and,
in the same value, as the HITLRequest Agent Chat UI renders as buttons (`action_requests`,
`review_configs`). An answer (`Command(resume=…)`) may be PolicyPal's `{type, value}`, Agent Chat
UI's `{decisions: [...]}` (approve = the offered default, edit = the edited args, reject = cancel)
or a bare value for the pending question (an action id, document ids, text).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from services.gateway.errors import ApiError
from shared.contracts import ANSWER_TYPE, ResumeValue

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


def _from_decision(kind: str, options: list[dict[str, Any]], decision: Any) -> ResumeValue:
    if not isinstance(decision, dict) or decision.get("type") not in ("approve", "edit", "reject"):
        raise ApiError(422, "validation_error", "command.resume.decisions[0].type must be approve, edit or reject")
    if decision["type"] == "reject":
        return ResumeValue(type="cancel")
    if decision["type"] == "approve":
        if not options:
            raise ApiError(422, "validation_error", f"a {kind} question has no default to approve; edit it instead")
        args = _default_args(kind, options)
    else:
        edited = decision.get("edited_action") or {}
        args = edited.get("args") if isinstance(edited, dict) else None
        if not isinstance(args, dict) or ARG[kind] not in args:
            raise ApiError(
                422, "validation_error", f"command.resume.decisions[0].edited_action.args.{ARG[kind]} is required"
            )
    return ResumeValue(type=ANSWER_TYPE[kind], value=args[ARG[kind]])


def resume_value(pending: dict[str, Any], resume: Any) -> ResumeValue:
    """Translate a client's `Command(resume=…)` into the answer the pending question expects."""
    kind = pending.get("interrupt_type")
    if kind not in ARG:
        raise ApiError(409, "not_answerable", "this question is answered by a human agent, not by the client")
    if isinstance(resume, dict) and "decisions" in resume:
        decisions = resume["decisions"]
        if not isinstance(decisions, list) or len(decisions) != 1:
            raise ApiError(422, "validation_error", "command.resume.decisions must hold exactly one decision")
        return _from_decision(kind, pending.get("options") or [], decisions[0])
    if isinstance(resume, dict) and "type" in resume:
        try:
            answer = ResumeValue.model_validate(resume)
        except ValidationError as exc:
            raise ApiError(422, "validation_error", f"command.resume: {exc.errors()[0]['msg']}") from exc
        if answer.type == "human_answer":
            raise ApiError(403, "forbidden", "only a human agent answers an escalated ticket")
        return answer
    return ResumeValue(type=ANSWER_TYPE[kind], value=resume)
