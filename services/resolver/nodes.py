"""Resolution-stage nodes (docs/architecture.md §7.1–§7.2): intent, documents, validation.

Each node reads state, may consult the database through the runtime context, and returns an
update. PalAssist questions are `palassist.ask`s; a cancel answer ends the turn at format_response
with the context's feedback message (the later resolution nodes pass a cancelled turn through), so
the thread is never left stuck.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Command

from services.resolver.tiptap import parse_tiptap
from shared.actions import action_names, action_spec, action_specs
from shared.contracts import InterruptOption
from shared.contracts.answers import TaggedAnswer, tagged_answer
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from shared.graph.context import StageContext
from shared.graph.errors import InvalidRequest
from shared.graph.palassist import Cancelled, ask
from shared.graph.scope import as_resolved, lookup, tagged_scope, within_limits
from shared.graph.state import AgentState, earlier_user_messages, resolved_doc_ids, resolved_docs, turn_action
from shared.graph.stream_parts import status_part
from shared.llm import CallScope, build_prompt
from shared.llm.schemas import DocResolutionInputs, DocResolutionOutput, IntentInputs, IntentOutput
from shared.text.requirements import requirement_sentences
from shared.text.temporal import temporal_flag

HISTORY_FOR_INTENT = 5
ALL_OF_THESE = "all"
# Cancel feedback: what each question's context still needs (`Cancelled` puts a short acknowledgement
# that the request was cancelled before it). An action's own texts are in its record (shared/actions).
NO_SPECIFIC_DOCUMENT = "I can't proceed with {action} without a specific document."
TAG_REQUEST = "Please tag the document you'd like to reference."
AUDIT_SOURCE_FEEDBACK = "I need the text you'd like to audit. Please include it with a @tagged regulation document."
AUDIT_SOURCE = (
    "What should I audit against? Paste the requirement text after a colon (e.g. “Audit @Policy: data must be "
    "deleted within 30 days”), or tag a company policy to use as the source."
)


def no_specific_document(action: str | None) -> str:
    return NO_SPECIFIC_DOCUMENT.format(action=action or "this request")


def action_unclear() -> str:
    """ "…Try again using @Summarize, @Inquire, @Compare, or @Audit.": every action of the table."""
    tags = [f"@{spec.label}" for spec in action_specs()]
    return f"I wasn't sure which action to perform. Try again using {', '.join(tags[:-1])}, or {tags[-1]}."


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


async def intent_resolver(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any]:
    mentions = parse_tiptap(state.get("tiptap_json"))
    requested = state.get("requested_action") or next((a for a in mentions.actions if a in action_names()), None)
    text = mentions.text or state.get("query", "")
    # The temporal keyword scan costs nothing, so it runs even when the action is explicit.
    web = bool(state.get("enable_web_search") or mentions.web or temporal_flag(text))
    if requested:
        return {"action": requested, "enable_web_search": web}
    runtime.stream_writer(status_part("intent_resolver"))  # announced only when there is intent to clarify
    result = await classify(runtime.context, state, text)
    web = web or result.web_search
    if result.confidence != "low" and len(result.actions) == 1:
        return {"action": result.actions[0], "enable_web_search": web}
    several = len(result.actions) > 1
    answer = ask(
        "action_choice",
        # The seed's PalAssist wording for a multi-action request.
        "I can only perform one action at a time. Which would you like to do first?"
        if several
        else "I can help in a few ways. What would you like me to do?",
        [
            InterruptOption(id=a, label=action_spec(a).choice_label)
            for a in (result.actions if several else action_names())
        ],
        on_cancel=action_unclear(),
    )
    if isinstance(answer, Cancelled):
        return answer.update
    return {"action": answer.value, "enable_web_search": web}


async def _library(ctx: StageContext, state: AgentState) -> tuple[dict[str, str], dict[str, str]]:
    """The user's ready documents (and tenant knowledge): {id: "Title (Version)"} and {id: doc_type}."""
    async with tenant_tx(ctx.db, state["tenant_id"], state["user_id"]) as conn:
        rows = await docs.ready_documents(conn)
    return {str(r["id"]): docs.display_name(r) for r in rows}, {str(r["id"]): r["doc_type"] for r in rows}


def _choose(candidates: list[tuple[str, str]], action: str | None) -> list[str] | Cancelled:
    """PalAssist `doc_choice` among similar titles, with "All of these"."""
    options = [InterruptOption(id=doc_id, label=title) for doc_id, title in candidates]
    answer = ask(
        "doc_choice",
        # The seed's style table: "Please specify which…", never "Which one did you mean?".
        "Several documents match. Please specify which document you would like to reference.",
        [*options, InterruptOption(id=ALL_OF_THESE, label="All of these")],
        on_cancel=no_specific_document(action),
    )
    if isinstance(answer, Cancelled):
        return answer
    # Checked against the options: offered ids only, or "all" alone (shared/contracts/answers.py).
    chosen: list[str] = answer.value
    return [doc_id for doc_id, _ in candidates] if chosen == [ALL_OF_THESE] else chosen


async def _ask_to_tag(ctx: StageContext, state: AgentState, action: str | None) -> TaggedAnswer | Cancelled:
    """PalAssist `text_input`, answered in the composer: its @-mentions (documents and sets) are the
    answer; a name typed without a tag is resolved against the user's documents. An answer that names
    none of them proceeds without documents (inquire then searches them all)."""
    answer = ask("text_input", TAG_REQUEST, on_cancel=no_specific_document(action))
    if isinstance(answer, Cancelled):
        return answer
    said = tagged_answer(answer.value)
    if said.tags:
        return said
    library, doc_types = await _library(ctx, state)
    inputs = DocResolutionInputs(message=said.text, action=action, library=library, doc_types=doc_types)
    match = await ctx.llm.structured(
        "doc_resolution", DocResolutionOutput, build_prompt("doc_resolution", inputs), scope=CallScope.of(state)
    )
    return TaggedAnswer(text=said.text, document_ids=match.ids)


async def _read_references(
    ctx: StageContext, state: AgentState, clean_query: str, explicit: list[str], action: str | None
) -> DocResolutionOutput:
    """The model's reading of the free text against the user's documents and the conversation's."""
    library, doc_types = await _library(ctx, state)
    inputs = DocResolutionInputs(
        message=state.get("query") or clean_query,
        clean_query=clean_query,
        action=action,
        registry=state.get("conversation_docs") or {},
        library=library,
        doc_types=doc_types,
        tagged=explicit,
        strict=action == "inquire",
    )
    return await ctx.llm.structured(
        "doc_resolution", DocResolutionOutput, build_prompt("doc_resolution", inputs), scope=CallScope.of(state)
    )


async def doc_resolver(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any]:
    if state.get("cancelled"):
        return {}  # the user cancelled the action choice: nothing to resolve
    mentions = parse_tiptap(state.get("tiptap_json"))
    explicit = list(dict.fromkeys([*state.get("tagged_doc_ids", []), *mentions.doc_ids]))
    set_ids = list(dict.fromkeys([*state.get("tagged_set_ids", []), *mentions.set_ids]))
    clean_query = mentions.text or state.get("query", "")
    source, confidence = "explicit", "high"
    tagged = bool(explicit or set_ids)
    # Stage 1 shortcut: only mentions, nothing to interpret. Free text next to tags is the hybrid
    # mode ("Does @Policy comply with that regulation?"): the model still reads it and what it finds
    # joins the tagged documents (docs/architecture.md §7.2). It gets the full original message, mention labels
    # included, so that it sees what was tagged and where (graph-fix plan, issue C).
    if not mentions.pure_mention:
        action = state.get("action")
        match = await _read_references(runtime.context, state, clean_query, explicit, action)
        ids = [d for d in match.ids if d not in explicit]
        if ids or not tagged:  # tags alone stay explicit; anything inferred carries the model's confidence
            source, confidence = match.source, match.confidence
        # Equally likely documents for one reference: PalAssist asks which, unless the user tagged one
        # of them ("Audit @Email against the guideline" with the guideline tagged).
        undecided = [(c.id, c.title) for c in match.candidates if c.id not in ids]
        if undecided and not any(c.id in explicit for c in match.candidates):
            chosen = _choose(undecided, action)
            if isinstance(chosen, Cancelled):
                return chosen.update
            ids += [d for d in chosen if d not in ids]
            confidence = "high"  # the user said which
        if match.unresolved and not ids and not explicit and not set_ids and not undecided:
            # A name that is none of the user's documents: ask to tag it.
            named = await _ask_to_tag(runtime.context, state, action)
            if isinstance(named, Cancelled):
                return named.update
            ids, source, confidence = named.document_ids, "explicit", "high"
            set_ids = [*set_ids, *(s for s in named.set_ids if s not in set_ids)]
        explicit = [*explicit, *ids]
    rows = within_limits(*await lookup(runtime.context, state, explicit, set_ids)) if (explicit or set_ids) else []
    return {
        "clean_query": clean_query,
        "resolved_docs": as_resolved(rows),
        "inference_source": source,
        "inference_confidence": confidence if rows or source == "none" else "low",
    }


async def validate_inputs(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any] | Command:
    if state.get("cancelled"):
        return {}  # a question of an earlier node was cancelled: route_action goes to format_response
    action = turn_action(state)
    spec = action_spec(action)
    have = len(state.get("resolved_docs", []))
    needed = spec.documents_needed
    update: dict[str, Any] = {"action": action}
    if not spec.web_allowed:
        update["enable_web_search"] = False
    if have < needed:
        feedback = spec.missing_docs_feedback or no_specific_document(action)
        answer = ask("doc_choice", spec.missing_docs, on_cancel=feedback)
        if isinstance(answer, Cancelled):
            return answer.command()
        # Canonical document ids: the answer was checked against the question (no options: any ids).
        rows, _ = await lookup(runtime.context, state, [*resolved_doc_ids(state), *answer.value], [])
        if len(rows) < needed:
            raise InvalidRequest(f"{action} needs {needed} document(s); {len(rows)} usable were given")
        update |= {
            "resolved_docs": as_resolved(rows),
            "inference_source": "explicit",
            "inference_confidence": "high",
        }
    # An audit also needs its source, asked after the target when both were missing (a second
    # question in the same node: on resume LangGraph replays the first answer, then this one).
    if spec.needs_source and not _audit_has_source({**state, **update}):
        return await _ask_audit_source(runtime.context, state, update)
    return update


def _audit_has_source(state: Mapping[str, Any]) -> bool:
    if requirement_sentences(state.get("clean_query") or state.get("query", "")):
        return True
    types = [doc.doc_type for doc in resolved_docs(state)]
    return len(types) >= 2 and "company_policy" in types


async def _ask_audit_source(ctx: StageContext, state: AgentState, update: dict[str, Any]) -> dict[str, Any] | Command:
    answer = ask("text_input", AUDIT_SOURCE, on_cancel=AUDIT_SOURCE_FEEDBACK)
    if isinstance(answer, Cancelled):
        return answer.command()
    said = tagged_answer(answer.value)
    if said.tags:  # a tagged company policy is the source (policy mode)
        have = resolved_doc_ids({**state, **update})
        rows = await tagged_scope(ctx, state, [*have, *said.document_ids], said.set_ids)
        update = {**update, "resolved_docs": rows, "inference_source": "explicit", "inference_confidence": "high"}
        if _audit_has_source({**state, **update}):
            return update
    if not requirement_sentences(said.text):
        raise InvalidRequest(
            "the audit source must contain at least one full requirement sentence, or tag a company policy"
        )
    return {**update, "clean_query": said.text}


RESOLVER_NODES = {
    "intent_resolver": intent_resolver,
    "doc_resolver": doc_resolver,
    "validate_inputs": validate_inputs,
}
