"""Acceptance of the resolution stage (issue #6), through the real bus, workers and checkpointer.

Covers the PolicyPal seed's "Example Flows (All 3 Modes)" and "Inference Confidence Tiers",
the graph-fix plan's scenarios S1–S4, PalAssist questions (action_choice, doc_choice,
text_input) answered, nested and cancelled, the pending question restored by the history
endpoint, a 30-turn conversation whose registry outlives the summary window, and the
`docs_found` status contract. One corpus is ingested per module (resolution_world.py).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from services.actions import worker as action_worker
from services.ingest import worker as ingest_worker
from services.resolver import worker as resolver_worker
from services.retrieval import worker as retrieval_worker
from shared.auth.tokens import mint_token
from shared.bus.connection import connect_bus
from shared.db.pool import open_database
from shared.db.tenants import ensure_tenant
from shared.graph.runner import thread_config
from shared.graph.stage import stage_graph
from shared.runtime.service import Infra
from tests.integration.conftest import running
from tests.integration.helpers import ingest_finished, read_events, submit_file
from tests.integration.resolution_world import (
    CORPUS,
    World,
    action,
    answer,
    compose,
    display,
    model_tasks,
    say,
)
from tests.integration.test_gateway import SECRET, gateway_client

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="module")]

RESOLUTION = ["intent_resolver", "doc_resolver", "docs_found", "validate_inputs"]
# A tagged action has no "Clarifying intent..." status (feature spec, PalReasoning edge cases).
TAGGED_ACTION = RESOLUTION[1:]
ACTION_UNCLEAR = "I wasn't sure which action to perform. Try again using @Summarize, @Inquire, @Compare, or @Audit."


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(settings, embedder, tmp_path_factory) -> AsyncIterator[World]:
    bus = await connect_bus(settings, name="resolution-flows")
    db = await open_database(settings)
    infra = Infra(settings=settings, bus=bus, db=db)
    tenant_id, user_id = uuid.uuid4(), f"user-{uuid.uuid4().hex[:8]}"
    await ensure_tenant(settings.admin_url, tenant_id, "Resolution flows", user_id)
    folder = tmp_path_factory.mktemp("corpus")
    services = [
        lambda s: ingest_worker.serve(infra, s),
        lambda s: retrieval_worker.serve(infra, s),
        lambda s: resolver_worker.serve(infra, s),
        *[lambda s, a=a: action_worker.serve_action(infra, s, a) for a in ("inquire", "summarize", "compare", "audit")],
    ]
    try:
        async with running(*services):
            world = World(infra, tenant_id, user_id)
            submitted = {}
            for key, (title, version, doc_type, source) in CORPUS.items():
                path = source if isinstance(source, Path) else folder / f"{key}.md"
                if not isinstance(source, Path):
                    path.write_text(source)
                submitted[key] = await submit_file(
                    infra, tenant_id, user_id, path, title=title, version=version, doc_type=doc_type
                )
            for key, cmd in submitted.items():
                progress = await read_events(
                    infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_finished
                )
                assert progress[-1]["status"] == "ready", progress[-1]
                world.ids[key] = str(cmd.document_id)
            yield world
    finally:
        await bus.close()
        await db.close()


async def checkpoint(world: World, thread_id: uuid.UUID) -> dict:
    return (await stage_graph(world.infra, {}).aget_state(thread_config(str(thread_id)))).values


def option_ids(turn) -> list[str]:
    return [o["id"] for o in turn.terminal["options"] or []]


# --- Example Flows (All 3 Modes) -------------------------------------------------------------------


async def test_explicit_only_mentions_skip_the_model(world):
    """EXPLICIT ONLY: "Compare @BankNegara2023 and @BankNegara2024" — UUIDs from TipTap, no LLM call."""
    turn = await say(world, uuid.uuid4(), action("compare"), " ", world.doc("bn23"), " and ", world.doc("bn24"))
    assert turn.kind == "response", turn.terminal
    assert turn.terminal["action"] == "compare" and turn.terminal["inference_confidence"] == "high"
    assert turn.nodes == [*TAGGED_ACTION, "compare", "format_response"]
    assert turn.docs_found == [world.ids["bn23"], world.ids["bn24"]]
    assert turn.cited == {world.ids["bn23"], world.ids["bn24"]}
    assert display("bn23") in turn.terminal["response"] and display("bn24") in turn.terminal["response"]
    # Cost $0 for resolution: neither the intent nor the document model was asked.
    tasks = await model_tasks(world, turn.run_id)
    assert "intent" not in tasks and "doc_resolution" not in tasks


async def test_implicit_only_registry_hit_resolves_both_documents(world):
    """IMPLICIT ONLY (high): after "Compare @Doc1 and @Doc2", "What are the key differences in capital
    requirements?" resolves both from the conversation_docs registry and proceeds silently."""
    thread = uuid.uuid4()
    first = await say(world, thread, action("compare"), world.doc("bn23"), " and ", world.doc("bn24"))
    assert first.kind == "response"
    assert (await checkpoint(world, thread))["conversation_docs"] == {
        display("bn23"): world.ids["bn23"],
        display("bn24"): world.ids["bn24"],
    }
    turn = await say(world, thread, "What are the key differences in capital requirements?")
    assert turn.kind == "response", turn.terminal  # no PalAssist question
    assert turn.terminal["action"] == "compare"
    assert sorted(turn.docs_found) == sorted([world.ids["bn23"], world.ids["bn24"]])
    assert turn.nodes == [*RESOLUTION, "compare", "format_response"]
    assert "doc_resolution" in await model_tasks(world, turn.run_id)
    assert turn.cited == {world.ids["bn23"], world.ids["bn24"]}


async def test_hybrid_tag_plus_reference_to_an_earlier_regulation(world):
    """HYBRID (high): "Summarize @BankNegara2023", then "Does @OurPolicy comply with that regulation?" —
    the tagged policy and the regulation of the earlier turn are merged; the audit runs at once."""
    thread = uuid.uuid4()
    first = await say(world, thread, action("summarize"), world.doc("bn23"))
    assert first.kind == "response" and first.terminal["action"] == "summarize"
    assert first.docs_found == [world.ids["bn23"]]

    turn = await say(world, thread, "Does ", world.doc("lending"), " comply with that regulation?")
    assert turn.kind == "response", turn.terminal
    assert turn.terminal["action"] == "audit"
    assert sorted(turn.docs_found) == sorted([world.ids["lending"], world.ids["bn23"]])
    assert turn.nodes == [*RESOLUTION, "audit", "format_response"]
    report = turn.terminal["findings"]
    assert report and report["overall_status"] in ("Compliant", "Minor Issues", "Major Violations")
    assert report["targets_checked"]
    state = await checkpoint(world, thread)
    assert state["inference_source"] in ("inferred", "fuzzy_match")  # not just the tag: the model merged a reference
    assert state["conversation_docs"] == {
        display("bn23"): world.ids["bn23"],
        display("lending"): world.ids["lending"],
    }


async def test_hybrid_medium_reference_asks_which_policy_then_audits(world):
    """HYBRID (medium): "Summarize @Doc1", "Summarize @Doc2", "Audit @Doc3 against the policy" — "the policy"
    is Doc1 or Doc2: PalAssist doc_choice with both and "All of these"; the choice resumes the audit."""
    thread = uuid.uuid4()
    for key in ("retention", "travel"):
        summary = await say(world, thread, action("summarize"), world.doc(key))
        assert summary.kind == "response" and summary.docs_found == [world.ids[key]]

    question = await say(world, thread, "Audit ", world.doc("storage"), " against the policy")
    assert question.kind == "interrupt", question.terminal
    assert question.terminal["interrupt_type"] == "doc_choice"
    assert option_ids(question) == [world.ids["retention"], world.ids["travel"], "all"]
    assert [o["label"] for o in question.terminal["options"]] == [
        display("retention"),
        display("travel"),
        "All of these",
    ]
    assert question.nodes == ["intent_resolver", "doc_resolver"]  # stopped inside doc_resolver

    done = await answer(world, thread, "doc_choice", world.ids["retention"])
    assert done.kind == "response", done.terminal
    assert done.terminal["action"] == "audit" and done.terminal["inference_confidence"] == "high"
    assert done.nodes == ["doc_resolver", "docs_found", "validate_inputs", "audit", "format_response"]
    assert sorted(done.docs_found) == sorted([world.ids["storage"], world.ids["retention"]])
    assert done.terminal["findings"]["targets_checked"]


async def test_unknown_name_with_an_action_asks_to_tag_and_cancel_says_why(world):
    """Low tier, action that needs a document: "Summarize the FSA guidelines" matches nothing → PalAssist
    asks for a tag; cancel → "I can't proceed with summarize without a specific document."; not stuck."""
    thread = uuid.uuid4()
    question = await say(world, thread, "Summarize the FSA guidelines")
    assert question.kind == "interrupt", question.terminal
    assert question.terminal["interrupt_type"] in ("doc_choice", "text_input")
    assert "tag" in question.terminal["message"].lower() and not question.terminal["options"]
    assert question.docs_found == []

    cancelled = await answer(world, thread, "cancel")
    assert cancelled.kind == "response", cancelled.terminal
    assert "I can't proceed with summarize without a specific document." in cancelled.terminal["response"]
    assert cancelled.nodes[-1] == "format_response" and "summarize" not in cancelled.nodes

    after = await say(world, thread, action("summarize"), world.doc("habits"))
    assert after.kind == "response" and after.cited == {world.ids["habits"]}


async def test_unknown_name_in_a_question_asks_to_tag_the_document(world):
    """IMPLICIT low: "What about the FSA guidelines?" — not in the registry, no fuzzy match ≥ 85 →
    PalAssist text_input "Please tag the document you'd like to reference."."""
    thread = uuid.uuid4()
    question = await say(world, thread, "What about the FSA guidelines?")
    assert question.kind == "interrupt", question.terminal
    assert question.terminal["interrupt_type"] == "text_input"
    assert question.terminal["message"] == "Please tag the document you'd like to reference."


async def test_registry_references_are_high_confidence(world):
    """Inference Confidence Tiers, High: a single clear match in the registry proceeds with a high badge."""
    thread = uuid.uuid4()
    await say(world, thread, action("summarize"), world.doc("bn23"))
    turn = await say(world, thread, "Does ", world.doc("lending"), " comply with that regulation?")
    assert turn.kind == "response" and turn.terminal["inference_confidence"] == "high"


# --- Graph-fix plan S1–S4 ------------------------------------------------------------------------


async def test_s1_explicit_document_clear_query(world):
    """S1: "@Inquire @MBG Explain" → explicit source, query rewritten, chunks found, cited answer."""
    thread = uuid.uuid4()
    turn = await say(world, thread, action("inquire"), world.doc("muscle"), " Explain")
    assert turn.kind == "response", turn.terminal
    assert turn.terminal["action"] == "inquire" and turn.terminal["inference_confidence"] == "high"
    assert turn.docs_found == [world.ids["muscle"]]
    tasks = await model_tasks(world, turn.run_id)
    assert "query_rewrite" in tasks and "intent" not in tasks
    state = await checkpoint(world, thread)
    assert state["inference_source"] == "explicit" and state["clean_query"] == "Explain"
    assert turn.cited == {world.ids["muscle"]} and "[1]" in turn.terminal["response"]


async def test_s2_explicit_document_short_query(world):
    """S2: "@Inquire @Atomic Habits Summary" → chunks of Atomic Habits found and cited."""
    turn = await say(world, uuid.uuid4(), action("inquire"), world.doc("habits"), " Summary")
    assert turn.kind == "response", turn.terminal
    assert turn.terminal["action"] == "inquire" and turn.docs_found == [world.ids["habits"]]
    assert (await checkpoint(world, turn.thread_id))["inference_source"] == "explicit"
    assert turn.cited == {world.ids["habits"]} and "habit" in turn.terminal["response"].lower()


async def test_s3_general_question_without_documents(world, settings):
    """S3: "What is capital interest?" for a user with no documents → no documents resolved, no chunks,
    mode B (general knowledge; the offline engine says it has none), low confidence badge."""
    tenant_id, user_id = uuid.uuid4(), f"user-{uuid.uuid4().hex[:8]}"
    await ensure_tenant(settings.admin_url, tenant_id, "No documents", user_id)
    empty = World(world.infra, tenant_id, user_id)
    turn = await say(empty, uuid.uuid4(), "What is capital interest?")
    assert turn.kind == "response", turn.terminal
    assert turn.terminal["action"] == "inquire"
    assert turn.docs_found == [] and turn.terminal["citations"] == []
    assert turn.terminal["retrieval_confidence"] == "low" and turn.terminal["confidence_score"] == 0.0
    assert "don't have any documents" in turn.terminal["response"]
    assert turn.nodes == ["intent_resolver", "doc_resolver", "validate_inputs", "inquire", "format_response"]


async def test_s4_document_resolved_but_content_not_found(world):
    """S4: "@Inquire @MBG What is quantum physics?" → the document is resolved, nothing relevant in it →
    mode C: says so, no general-knowledge answer, low confidence; the closest passage is offered, cited, for
    the reader to judge (docs/answers-on-real-documents.md)."""
    turn = await say(world, uuid.uuid4(), action("inquire"), world.doc("muscle"), " What is quantum physics?")
    assert turn.kind == "response", turn.terminal
    assert turn.docs_found == [world.ids["muscle"]]
    assert turn.terminal["response"].startswith(
        f"I couldn't find anything relevant to your question in {display('muscle')}."
    )
    assert turn.terminal["retrieval_confidence"] == "low"
    assert {c["document_id"] for c in turn.terminal["citations"]} <= {world.ids["muscle"]}


# --- PalAssist: action choice, cancels, nested questions, refresh ---------------------------------


async def test_multi_action_message_asks_which_action_and_continues_with_the_choice(world):
    thread = uuid.uuid4()
    question = await say(world, thread, "Summarize and audit ", world.doc("retention"))
    assert question.kind == "interrupt", question.terminal
    assert question.terminal["interrupt_type"] == "action_choice"
    assert question.terminal["message"] == "I can only perform one action at a time. Which would you like to do first?"
    assert option_ids(question) == ["summarize", "audit"]
    assert question.nodes == ["intent_resolver"]

    done = await answer(world, thread, "action_choice", "summarize")
    assert done.kind == "response", done.terminal
    assert done.terminal["action"] == "summarize"
    assert done.nodes == [*RESOLUTION, "summarize", "format_response"]
    assert done.docs_found == [world.ids["retention"]] and done.cited == {world.ids["retention"]}


async def test_cancel_action_choice_gives_feedback_and_the_thread_goes_on(world):
    thread = uuid.uuid4()
    question = await say(world, thread, "Summarize and audit ", world.doc("retention"))
    assert question.terminal["interrupt_type"] == "action_choice"
    cancelled = await answer(world, thread, "cancel")
    assert cancelled.kind == "response", cancelled.terminal
    assert ACTION_UNCLEAR in cancelled.terminal["response"]
    # Nothing downstream did any work: the resolution nodes pass the cancelled turn through, no action runs.
    assert cancelled.nodes == ["intent_resolver", "doc_resolver", "validate_inputs", "format_response"]
    state = await checkpoint(world, thread)
    assert state["cancelled"] is True and state["messages"][-1].content == cancelled.terminal["response"]

    after = await say(
        world, thread, "How long is CCTV footage kept?", action="inquire", tagged_doc_ids=[world.ids["retention"]]
    )
    assert after.kind == "response" and "thirty days" in after.terminal["response"]


async def test_cancel_doc_choice_gives_feedback_and_the_thread_goes_on(world):
    """Medium tier: two versions of one title fit → doc_choice; cancel → "I can't proceed with {action}…"."""
    thread = uuid.uuid4()
    question = await say(world, thread, "Summarize the Bank Negara regulation")
    assert question.kind == "interrupt", question.terminal
    assert question.terminal["interrupt_type"] == "doc_choice"
    assert option_ids(question) == [world.ids["bn23"], world.ids["bn24"], "all"]
    cancelled = await answer(world, thread, "cancel")
    assert cancelled.kind == "response", cancelled.terminal
    assert "I can't proceed with summarize without a specific document." in cancelled.terminal["response"]
    assert cancelled.nodes == ["doc_resolver", "validate_inputs", "format_response"]
    assert (await checkpoint(world, thread)).get("conversation_docs", {}) == {}

    after = await say(world, thread, "Summarize the 2024 version of the Bank Negara regulation")
    assert after.kind == "response", after.terminal
    assert after.docs_found == [world.ids["bn24"]] and after.cited == {world.ids["bn24"]}


async def test_cancel_text_input_gives_feedback_and_the_thread_goes_on(world):
    thread = uuid.uuid4()
    question = await say(world, thread, action("audit"), world.doc("retention"))
    assert question.kind == "interrupt", question.terminal
    assert question.terminal["interrupt_type"] == "text_input"
    assert question.nodes == TAGGED_ACTION  # the target is known; the source text is missing
    cancelled = await answer(world, thread, "cancel")
    assert cancelled.kind == "response", cancelled.terminal
    assert (
        "I need the text you'd like to audit. Please include it with a @tagged regulation document."
        in cancelled.terminal["response"]
    )
    assert cancelled.nodes == ["validate_inputs", "format_response"]
    # The registry keeps what the cancelled turn resolved (seed: conversation_docs preserved on cancel).
    assert (await checkpoint(world, thread))["conversation_docs"] == {display("retention"): world.ids["retention"]}

    after = await say(world, thread, "Audit it: CCTV footage must be deleted after 30 days.", action="audit")
    assert after.kind == "response", after.terminal
    assert after.docs_found == [world.ids["retention"]]
    assert after.terminal["findings"]["overall_status"] == "Compliant"


async def test_nested_doc_choice_then_audit_text_both_resumed_and_restored_on_refresh(world, settings):
    """doc_choice (which version?) then text_input (audit against what?), each answered over resume;
    meanwhile GET /v1/chat/history/{thread} restores the pending PalAssist question after a refresh."""
    thread = uuid.uuid4()
    token = mint_token(SECRET, tenant_id=world.tenant_id, sub=world.user_id)
    async with gateway_client(settings, token) as client:

        async def pending() -> dict | None:
            reply = await client.get(f"/v1/chat/history/{thread}")
            assert reply.status_code == 200, reply.text
            return reply.json()["pending_interrupt"]

        first = await say(world, thread, "Audit the Bank Negara regulation")
        assert first.kind == "interrupt" and first.terminal["interrupt_type"] == "doc_choice", first.terminal
        restored = await pending()
        assert restored["interrupt_type"] == "doc_choice" and restored["message"] == first.terminal["message"]
        assert [o["id"] for o in restored["options"]] == option_ids(first)

        second = await answer(world, thread, "doc_choice", world.ids["bn24"])
        assert second.kind == "interrupt", second.terminal
        assert second.terminal["interrupt_type"] == "text_input" and second.terminal["options"] is None
        assert second.nodes == ["doc_resolver", "docs_found", "validate_inputs"]
        assert second.docs_found == [world.ids["bn24"]]
        restored = await pending()
        assert restored["interrupt_type"] == "text_input" and restored["message"] == second.terminal["message"]

        done = await answer(
            world,
            thread,
            "text_input",
            "Banks must maintain a minimum Common Equity Tier 1 capital ratio of 6 percent.",
        )
        assert done.kind == "response", done.terminal
        assert done.terminal["action"] == "audit" and done.nodes == ["validate_inputs", "audit", "format_response"]
        assert done.terminal["findings"]["targets_checked"]
        assert {f["target_doc_id"] for f in done.terminal["findings"]["findings"]} <= {world.ids["bn24"]}

        history = (await client.get(f"/v1/chat/history/{thread}")).json()
        assert history["pending_interrupt"] is None
        kinds = [m["metadata"].get("kind") for m in history["messages"] if m["role"] == "system"]
        assert kinds == ["pal_assist", "pal_assist"]  # both questions stay in the audit trail
        assert history["messages"][-1]["role"] == "assistant"


async def test_nested_missing_target_then_missing_audit_text(world):
    """Audit with neither target nor source: validate_inputs asks for the document, then for the text."""
    thread = uuid.uuid4()
    first = await say(world, thread, "Audit this", action="audit")
    assert first.kind == "interrupt" and first.terminal["interrupt_type"] == "doc_choice", first.terminal
    second = await answer(world, thread, "doc_choice", [world.ids["retention"]])
    assert second.kind == "interrupt", second.terminal
    assert second.terminal["interrupt_type"] == "text_input"
    done = await answer(world, thread, "text_input", "CCTV footage must be deleted after 30 days.")
    assert done.kind == "response", done.terminal
    assert done.terminal["action"] == "audit" and done.terminal["findings"]["overall_status"] == "Compliant"
    assert {f["target_doc_id"] for f in done.terminal["findings"]["findings"]} <= {world.ids["retention"]}


# --- Long conversation ---------------------------------------------------------------------------

QUESTIONS = (
    "How long is CCTV footage kept?",
    "How long are server access logs kept?",
    "How long is job applicant data retained?",
    "How long are security incident records kept?",
)


async def test_thirty_turns_keep_resolving_those_two_docs_after_windowing(world):
    """Architecture §7.5: past 15 messages the oldest are folded into conversation_summary; conversation_docs survives,
    so "those two docs" keeps meaning the two documents of the first turn."""
    thread = uuid.uuid4()
    pair = sorted([world.ids["retention"], world.ids["travel"]])
    first = await say(world, thread, action("compare"), world.doc("retention"), " and ", world.doc("travel"))
    assert first.kind == "response" and sorted(first.docs_found) == pair
    for n in range(2, 31):
        if n % 10 == 0:
            turn = await say(world, thread, "What do those two docs say about deleting records within thirty days?")
            assert turn.kind == "response", (n, turn.terminal)
            assert sorted(turn.docs_found) == pair, n
            assert turn.cited and turn.cited <= set(pair), (n, turn.terminal["response"])
        else:
            turn = await say(
                world,
                thread,
                QUESTIONS[n % len(QUESTIONS)],
                action="inquire",
                tagged_doc_ids=[world.ids["retention"]],
            )
            assert turn.kind == "response", (n, turn.terminal)
    state = await checkpoint(world, thread)
    assert len(state["messages"]) <= 15 and state["conversation_summary"]
    # The turn that tagged the two documents is gone from the agent's window: only the registry has them.
    opening, _ = compose(action("compare"), world.doc("retention"), " and ", world.doc("travel"))
    assert opening not in [m.content for m in state["messages"]]
    assert "CCTV" in state["conversation_summary"] and "those two docs" in state["conversation_summary"]
    assert state["conversation_docs"] == {
        display("retention"): world.ids["retention"],
        display("travel"): world.ids["travel"],
    }
    compare = await say(world, thread, "Compare those two docs")
    assert compare.kind == "response" and compare.terminal["action"] == "compare", compare.terminal
    assert sorted(compare.docs_found) == pair
