"""Pure resolution logic: TipTap mentions, intent rules, and the graph's stage guards."""

from __future__ import annotations

from datetime import date

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime

from services.resolver.nodes import intent_resolver
from services.resolver.tiptap import parse_tiptap
from shared.config import Settings
from shared.graph.context import StageContext
from shared.graph.topology import WrongStageError, all_nodes, build_graph, route_action
from shared.llm import LLMService
from shared.llm.offline.intent import classify_intent
from shared.llm.providers.offline import OfflineProvider
from shared.text.temporal import temporal_flag


def mention(category: str, ident: str, label: str) -> dict:
    return {"type": "mention", "attrs": {"id": ident, "label": label, "category": category}}


def test_tiptap_mentions_and_clean_query():
    doc = {
        "type": "doc",
        "content": [
            {
                "type": "paragraph",
                "content": [
                    mention("action", "compare", "Compare"),
                    {"type": "text", "text": " the retention rules in "},
                    mention("document", "d1", "Policy (2026)"),
                    {"type": "text", "text": " and "},
                    mention("set", "s1", "GDPR"),
                    mention("web", "web", "Web"),
                ],
            }
        ],
    }
    parsed = parse_tiptap(doc)
    assert parsed.doc_ids == ["d1"] and parsed.set_ids == ["s1"] and parsed.actions == ["compare"]
    assert parsed.web and parsed.text == "the retention rules in and"
    assert not parsed.pure_mention


def test_pure_mention_has_no_free_text():
    doc = {"type": "doc", "content": [{"type": "paragraph", "content": [mention("document", "d1", "Policy")]}]}
    assert parse_tiptap(doc).pure_mention and parse_tiptap(None).text == ""
    assert not parse_tiptap(None).pure_mention


@pytest.mark.parametrize(
    ("text", "actions", "confidence"),
    [
        ("Summarize the retention policy", ("summarize",), "high"),
        ("Summarize the policy about CCTV footage", ("inquire",), "high"),
        ("Compare these two policies", ("compare",), "high"),
        ("Is our policy compliant with the regulation?", ("audit",), "high"),
        ("How long do we keep applicant data?", ("inquire",), "high"),
        ("retention of logs", ("inquire",), "medium"),
        ("Summarize and audit the policy", ("summarize", "audit"), "low"),
    ],
)
def test_intent_rules(text, actions, confidence):
    result = classify_intent(text)
    assert result.actions == actions and result.confidence == confidence


def test_temporal_terms_set_the_web_flag():
    today = date(2026, 11, 22)
    assert temporal_flag("What is the latest guidance?", today)
    assert temporal_flag("Is this still enforced?", today)
    assert temporal_flag("changes in 2025", today)
    assert not temporal_flag("What does article 5 say?", today)


async def test_a_worker_cannot_run_another_stages_node():
    graph = build_graph({}).compile()
    with pytest.raises(WrongStageError, match="intent_resolver"):
        await graph.ainvoke({"query": "x"})


def test_routing_and_node_set():
    assert route_action({"action": "compare"}) == "compare"
    assert route_action({"action": "inquire", "cancelled": True}) == "format_response"
    with pytest.raises(ValueError):
        route_action({"action": "dance"})
    with pytest.raises(ValueError, match="unknown nodes"):
        build_graph({"dance": lambda s: s})
    assert all_nodes()[0] == "intent_resolver" and all_nodes()[-1] == "format_response"


def offline_runtime() -> Runtime[StageContext]:
    """Nodes' runtime with the offline engine and no ledger: the intent pass touches no infrastructure."""
    settings = Settings(llm_provider="offline")
    return Runtime(
        context=StageContext(settings=settings, bus=None, db=None, llm=LLMService(settings, OfflineProvider()))
    )


async def test_follow_up_without_an_action_word_continues_the_previous_action():
    history = [HumanMessage("Summarize the retention policy", id="1"), AIMessage("…", id="2")]
    runtime = offline_runtime()

    async def action_of(text: str, earlier: list) -> str:
        state = {"tenant_id": "t", "query": text, "messages": [*earlier, HumanMessage(text, id="3")]}
        return (await intent_resolver(state, runtime))["action"]

    assert await action_of("now the regulation", history) == "summarize"
    assert await action_of("what about logs?", history) == "inquire"  # a question stands on its own
    assert await action_of("retention of logs", []) == "inquire"
