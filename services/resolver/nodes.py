"""Resolution-stage nodes (SPEC §7.2–§7.4): intent, documents, validation.

Each node reads state, may consult the database through the runtime context, and returns an
update. PalAssist questions are dynamic `interrupt()`s; a cancel answer jumps to
format_response with the context's feedback message so the thread is never left stuck.
"""

from __future__ import annotations

import uuid
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt

from services.resolver.tiptap import parse_tiptap
from shared.contracts import ACTIONS
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from shared.graph.context import StageContext
from shared.graph.state import AgentState, earlier_user_messages
from shared.graph.topology import FORMAT_NODE
from shared.llm import CallScope, build_prompt
from shared.llm.offline.audit import requirement_sentences
from shared.llm.offline.intent import temporal_flag
from shared.llm.schemas import DocResolutionInputs, DocResolutionOutput, IntentInputs, IntentOutput

MAX_DOCS_PER_ACTION = 5
HISTORY_FOR_INTENT = 5
ALL_OF_THESE = "all"
ACTION_LABELS = {"summarize": "Summarize", "inquire": "Ask a question", "compare": "Compare", "audit": "Audit"}
CANCEL_FEEDBACK = {
    "intent_resolver": "No problem — I've cancelled that request. Tell me what you'd like to do next.",
    "doc_resolver": "Okay, I've cancelled this request. Tag the document you mean with @ and ask again.",
    "validate_inputs": (
        "Okay, I've cancelled this request. Tag the documents you want and ask again whenever you're ready."
    ),
}
MISSING_DOCS = {
    "summarize": "Which document would you like me to summarize? Please tag it with @.",
    "compare": "Comparing needs at least two documents. Please tag the documents you'd like to compare.",
    "audit": "Which document should I audit? Please tag the target document with @.",
}
AUDIT_SOURCE = (
    "What should I audit against? Paste the requirement text after a colon (e.g. “Audit @Policy: data must be "
    "deleted within 30 days”), or tag a company policy to use as the source."
)


class TooManyDocuments(ValueError):
    pass


def cancelled(node: str) -> Command:
    return Command(goto=FORMAT_NODE, update={"cancelled": True, "response": CANCEL_FEEDBACK[node]})


async def classify(ctx: StageContext, state: AgentState, text: str) -> IntentOutput:
    """First pass on the latest message; when that is not sure, a second pass with the last five
    user messages (a follow-up like "now the regulation" continues the earlier action)."""
    scope = CallScope.of(state)
    result = await ctx.llm.structured(
        "intent", IntentOutput, build_prompt("intent", IntentInputs(message=text)), scope=scope
    )
    history = earlier_user_messages(state, HISTORY_FOR_INTENT)
    if result.confidence == "high" or not history:
        return result
    second = IntentInputs(message=text, history=history)
    return await ctx.llm.structured("intent", IntentOutput, build_prompt("intent", second), scope=scope)


async def intent_resolver(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any] | Command:
    mentions = parse_tiptap(state.get("tiptap_json"))
    requested = state.get("requested_action") or next((a for a in mentions.actions if a in ACTIONS), None)
    text = mentions.text or state.get("query", "")
    # The temporal keyword scan costs nothing, so it runs even when the action is explicit.
    web = bool(state.get("enable_web_search") or mentions.web or temporal_flag(text))
    if requested:
        return {"action": requested, "enable_web_search": web}
    result = await classify(runtime.context, state, text)
    web = web or result.web_search
    if result.confidence != "low" and len(result.actions) == 1:
        return {"action": result.actions[0], "enable_web_search": web}
    answer = interrupt(
        {
            "interrupt_type": "action_choice",
            "message": "I can help in a few ways. What would you like me to do?",
            "options": [
                {"id": a, "label": ACTION_LABELS[a]} for a in (result.actions if len(result.actions) > 1 else ACTIONS)
            ],
        }
    )
    if answer.get("type") == "cancel":
        return cancelled("intent_resolver")
    choice = answer.get("value")
    if choice not in ACTIONS:
        raise ValueError(f"action_choice must be one of {ACTIONS}, got {choice!r}")
    return {"action": choice, "enable_web_search": web}


async def _lookup(ctx: StageContext, state: AgentState, doc_ids: list[str], set_ids: list[str]) -> list[dict[str, Any]]:
    async with tenant_tx(ctx.db, state["tenant_id"], state["user_id"]) as conn:
        rows = await docs.documents_by_ids(conn, [uuid.UUID(d) for d in doc_ids]) if doc_ids else []
        if set_ids:
            rows += await docs.documents_in_sets(conn, [uuid.UUID(s) for s in set_ids])
    unique: dict[uuid.UUID, dict[str, Any]] = {}
    for row in rows:
        unique.setdefault(row["id"], row)
    return list(unique.values())


async def _library(ctx: StageContext, state: AgentState) -> dict[str, str]:
    """The user's ready documents (and tenant knowledge) as {id: "Title (Version)"}."""
    async with tenant_tx(ctx.db, state["tenant_id"], state["user_id"]) as conn:
        rows = await (
            await conn.execute("SELECT id, title, version FROM documents WHERE status = 'ready' ORDER BY created_at")
        ).fetchall()
    return {str(r["id"]): docs.display_name(r) for r in rows}


def _choose(candidates: list[tuple[str, str]]) -> list[str] | Command:
    """PalAssist `doc_choice` among similar titles, with "All of these"."""
    options = [{"id": doc_id, "label": title} for doc_id, title in candidates]
    answer = interrupt(
        {
            "interrupt_type": "doc_choice",
            "message": "I found several documents that could match. Which one did you mean?",
            "options": [*options, {"id": ALL_OF_THESE, "label": "All of these"}],
        }
    )
    if answer.get("type") == "cancel":
        return cancelled("doc_resolver")
    value = answer.get("value")
    chosen = [value] if isinstance(value, str) else list(value or [])
    if ALL_OF_THESE in chosen:
        return [doc_id for doc_id, _ in candidates]
    allowed = {doc_id for doc_id, _ in candidates}
    if not chosen or not set(chosen) <= allowed:
        raise ValueError("doc_choice must name one or more of the offered documents, or 'all'")
    return chosen


async def doc_resolver(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any] | Command:
    mentions = parse_tiptap(state.get("tiptap_json"))
    explicit = list(dict.fromkeys([*state.get("tagged_doc_ids", []), *mentions.doc_ids]))
    set_ids = list(dict.fromkeys([*state.get("tagged_set_ids", []), *mentions.set_ids]))
    clean_query = mentions.text or state.get("query", "")
    source, confidence = "explicit", "high"
    if not explicit and not set_ids and not mentions.pure_mention:
        inputs = DocResolutionInputs(
            message=clean_query,
            action=state.get("action"),
            registry=state.get("conversation_docs") or {},
            library=await _library(runtime.context, state),
            strict=state.get("action") == "inquire",
        )
        match = await runtime.context.llm.structured(
            "doc_resolution", DocResolutionOutput, build_prompt("doc_resolution", inputs), scope=CallScope.of(state)
        )
        ids = match.ids
        if not ids and match.candidates:
            chosen = _choose([(c.id, c.title) for c in match.candidates])
            if isinstance(chosen, Command):
                return chosen
            ids = chosen
        explicit, source, confidence = ids, match.source, match.confidence
    rows = await _lookup(runtime.context, state, explicit, set_ids) if (explicit or set_ids) else []
    if len(rows) > MAX_DOCS_PER_ACTION:
        raise TooManyDocuments(
            f"{len(rows)} documents selected; an action can use at most {MAX_DOCS_PER_ACTION}. "
            "Tag fewer documents or a smaller set."
        )
    return {
        "clean_query": clean_query,
        "resolved_doc_ids": [str(r["id"]) for r in rows],
        "resolved_doc_titles": [docs.display_name(r) for r in rows],
        "resolved_doc_types": [r["doc_type"] for r in rows],
        "inference_source": source,
        "inference_confidence": confidence if rows or source == "none" else "low",
    }


async def validate_inputs(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any] | Command:
    action = state.get("action") or "inquire"
    have = len(state.get("resolved_doc_ids", []))
    needed = {"summarize": 1, "compare": 2, "audit": 1}.get(action, 0)
    update: dict[str, Any] = {"action": action}
    if action == "compare":
        update["enable_web_search"] = False
    if have >= needed and action == "audit" and not _audit_has_source(state):
        return _ask_audit_source(update)
    if have >= needed:
        return update
    answer = interrupt({"interrupt_type": "doc_choice", "message": MISSING_DOCS[action], "options": None})
    if answer.get("type") == "cancel":
        return cancelled("validate_inputs")
    chosen = answer.get("value") or []
    chosen = [chosen] if isinstance(chosen, str) else list(chosen)
    rows = await _lookup(runtime.context, state, [*state.get("resolved_doc_ids", []), *chosen], [])
    if len(rows) < needed:
        raise ValueError(f"{action} needs {needed} document(s); {len(rows)} usable were given")
    return {
        **update,
        "resolved_doc_ids": [str(r["id"]) for r in rows],
        "resolved_doc_titles": [docs.display_name(r) for r in rows],
        "resolved_doc_types": [r["doc_type"] for r in rows],
        "inference_source": "explicit",
        "inference_confidence": "high",
    }


def _audit_has_source(state: AgentState) -> bool:
    if requirement_sentences(state.get("clean_query") or state.get("query", "")):
        return True
    types = state.get("resolved_doc_types", [])
    return len(types) >= 2 and "company_policy" in types


def _ask_audit_source(update: dict[str, Any]) -> dict[str, Any] | Command:
    answer = interrupt({"interrupt_type": "text_input", "message": AUDIT_SOURCE, "options": None})
    if answer.get("type") == "cancel":
        return cancelled("validate_inputs")
    text = str(answer.get("value") or "").strip()
    if not requirement_sentences(text):
        raise ValueError("the audit source must contain at least one full requirement sentence")
    return {**update, "clean_query": text}


RESOLVER_NODES = {
    "intent_resolver": intent_resolver,
    "doc_resolver": doc_resolver,
    "validate_inputs": validate_inputs,
}
