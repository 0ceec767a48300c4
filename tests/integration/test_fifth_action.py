"""A fifth action added in a fixture, as one record and one node (tests/integration/define_action.py):
its turns run through the real bus, workers and checkpoints on the offline engine, and every layer
that lists actions (contracts, graph, resolver, intent rules, prompts, model routing, AsyncAPI, CLI,
the UI's JSON) knows it without another change."""

from __future__ import annotations

import uuid

import pytest

from policypal.asyncapi import asyncapi_document
from policypal.cli import build_parser
from services.gateway.routes.actions import list_actions
from shared.actions import registry
from shared.contracts import ActionCommand, ChatCommand
from shared.graph.topology import status_text
from shared.llm import MODEL_MAP, build_prompt
from shared.llm.schemas import IntentInputs
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.define_action import DEFINE
from tests.integration.helpers import ingested, read_events, turn_finished
from tests.integration.test_turn import services, start_turn

pytestmark = pytest.mark.integration


@pytest.fixture
def fifth_action(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "TABLE", (*registry.TABLE, DEFINE))


async def test_every_layer_that_lists_actions_knows_the_fifth(fifth_action, settings) -> None:
    ActionCommand(tenant_id=uuid.uuid4(), user_id="u", thread_id=uuid.uuid4(), action="define")
    assert status_text("define") == "Looking up the definition..."
    assert MODEL_MAP["define"].max_tokens == 512
    intent = build_prompt("intent", IntentInputs(message="x")).messages[0].content
    assert "or define (what the documents say a term means)" in intent
    assert "define" in [a.id for a in await list_actions()]
    channels = asyncapi_document(settings)["channels"]
    assert any(channel["address"].endswith("cmd.action.define") for channel in channels.values())
    assert build_parser().parse_args(["worker", "action", "--action", "define"]).action == "define"


def test_without_the_fixture_the_action_is_refused() -> None:
    with pytest.raises(ValueError, match="Input should be one of"):
        ActionCommand(tenant_id=uuid.uuid4(), user_id="u", thread_id=uuid.uuid4(), action="define")


async def test_a_turn_of_the_fifth_action_runs_through_the_bus(fifth_action, infra, tenant, embedder) -> None:
    tenant_id, user_id = tenant
    async with running(*services(infra, "define")):
        doc = await ingested(
            infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf", title="Retention Policy"
        )
        # Untagged action: the offline intent rules find it from the record's words.
        thread = uuid.uuid4()
        cmd: ChatCommand = await start_turn(
            infra, tenant_id, user_id, thread, "Define CCTV footage retention", tagged_doc_ids=[doc.document_id]
        )
        events = await read_events(infra, infra.bus.subjects.evt_thread(thread), until=turn_finished(cmd.run_id))
        # Explicit action without a document: the record's question asks for one.
        asking = uuid.uuid4()
        second = await start_turn(infra, tenant_id, user_id, asking, "What is CCTV footage?", action="define")
        question = await read_events(infra, infra.bus.subjects.evt_thread(asking), until=turn_finished(second.run_id))

    statuses = [e["node"] for e in events if e["type"] == "status"]
    assert "intent_resolver" in statuses and statuses[-2:] == ["define", "format_response"]
    assert [e["message"] for e in events if e["type"] == "status" and e["node"] == "define"][0] == DEFINE.status
    answer = [e for e in events if e["type"] == "response"][0]
    assert answer["action"] == "define" and "thirty days" in answer["response"] and "[1]" in answer["response"]
    assert answer["citations"][0]["document_id"] == str(doc.document_id)
    interrupt = question[-1]
    assert interrupt["type"] == "interrupt" and interrupt["interrupt_type"] == "doc_choice"
    assert interrupt["message"] == DEFINE.missing_docs
