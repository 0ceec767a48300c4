"""A chat turn through the bus: resolver → action worker → events, over real checkpoints."""

from __future__ import annotations

import asyncio
import json
import uuid

import psycopg
import pytest

from services.actions import worker as action_worker
from services.ingest import worker as ingest_worker
from services.resolver import worker as resolver_worker
from services.retrieval import worker as retrieval_worker
from shared.bus.publish import publish
from shared.contracts import ActionCommand, ChatCommand
from shared.db import conversations
from shared.db.pool import tenant_tx
from shared.graph.runner import thread_config
from shared.graph.stage import stage_graph
from shared.telemetry.trace import TRACEPARENT, current_traceparent, new_traceparent, trace_id
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.helpers import ingested, read_events, turn_finished

pytestmark = pytest.mark.integration


def services(infra, action: str = "inquire"):
    """Every worker a turn of `action` passes through, in-process."""
    return (
        lambda s: ingest_worker.serve(infra, s),
        lambda s: retrieval_worker.serve(infra, s),
        lambda s: resolver_worker.serve(infra, s),
        lambda s: action_worker.serve_action(infra, s, action),
    )


async def start_turn(infra, tenant_id, user_id, thread_id, message, **fields) -> ChatCommand:
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        await conversations.create_conversation(conn, thread_id, tenant_id, user_id)
    cmd = ChatCommand(tenant_id=tenant_id, user_id=user_id, thread_id=thread_id, message=message, **fields)
    await publish(infra.bus, infra.bus.subjects.cmd_chat, cmd, msg_id=str(cmd.run_id))
    return cmd


async def ask_about_cctv(infra, tenant_id, user_id, thread_id, doc_id) -> tuple[ChatCommand, list[dict]]:
    """An inquire turn tagged with the retention policy, and its events up to the terminal one."""
    cmd = await start_turn(
        infra,
        tenant_id,
        user_id,
        thread_id,
        "How long is CCTV footage kept?",
        action="inquire",
        tagged_doc_ids=[doc_id],
    )
    return cmd, await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(cmd.run_id))


async def test_turn_answers_with_citations_and_second_turn_sees_the_first(infra, tenant, embedder):
    tenant_id, user_id = tenant
    thread_id = uuid.uuid4()
    async with running(*services(infra)):
        doc = await ingested(
            infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf", title="Retention Policy"
        )
        trace = new_traceparent()
        current_traceparent.set(trace)
        first, events = await ask_about_cctv(infra, tenant_id, user_id, thread_id, doc.document_id)
        second = await start_turn(infra, tenant_id, user_id, thread_id, "And server access logs?", action="inquire")
        later = await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(second.run_id))

    statuses = [e["node"] for e in events if e["type"] == "status"]
    # The action was tagged: no "Clarifying intent..." (feature spec, PalReasoning edge cases).
    assert statuses[:2] == ["doc_resolver", "doc_resolver"] and "intent_resolver" not in statuses
    assert statuses[-2:] == ["inquire", "format_response"]
    assert any(e["type"] == "token" for e in events)
    terminal = [e for e in events if e["type"] in ("response", "error", "interrupt")]
    assert len(terminal) == 1 and terminal[0]["type"] == "response"
    answer = terminal[0]
    assert "thirty days" in answer["response"] and "[1]" in answer["response"]
    citation = answer["citations"][0]
    assert citation["document_id"] == str(doc.document_id) and citation["page"] == 1
    assert citation["quote"] and len(citation["quote"]) <= 300 and citation["title"] == "Retention Policy (v1)"
    assert answer["engine"] == "offline-extractive"
    # The trace started by the caller reaches the events published by the workers.
    assert {trace_id(e["_headers"].get(TRACEPARENT)) for e in events} == {trace_id(trace)}

    # Turn two: the registry from turn one resolves nothing new, and the checkpoint holds both turns.
    second_answer = [e for e in later if e["type"] == "response" and e["run_id"] == str(second.run_id)][0]
    assert "ninety days" in second_answer["response"]
    graph = stage_graph(infra, {})
    state = (await graph.aget_state(thread_config(str(thread_id)))).values
    assert [m.type for m in state["messages"]] == ["human", "ai", "human", "ai"]
    assert state["conversation_docs"] == {"Retention Policy (v1)": str(doc.document_id)}
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        rows = await conversations.history(conn, thread_id, 50)
    assert [r["role"] for r in rows] == ["assistant", "assistant"]  # user rows are written by the gateway
    assert json.dumps(rows[0]["metadata"]["citations"])


async def test_invalid_command_is_dead_lettered_and_reported(infra, tenant):
    tenant_id, user_id = tenant
    thread_id, run_id = uuid.uuid4(), uuid.uuid4()
    bad = {
        "schema_version": 1,
        "run_id": str(run_id),
        "tenant_id": str(tenant_id),
        "user_id": user_id,
        "thread_id": str(thread_id),
        "message": "",
    }
    async with running(lambda s: resolver_worker.serve(infra, s)):
        await infra.bus.js.publish(infra.bus.subjects.cmd_chat, json.dumps(bad).encode())
        events = await read_events(
            infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(run_id), timeout=30
        )
    assert events[-1]["type"] == "error" and events[-1]["code"] == "dead_letter"
    assert "message" in events[-1]["message"]
    dlq = await infra.bus.js.get_last_msg(infra.bus.subjects.dlq_stream, infra.bus.subjects.dlq("resolver"))
    assert json.loads(dlq.data)["run_id"] == str(run_id)


async def test_turn_on_someone_elses_thread_is_refused(infra, tenant):
    tenant_id, user_id = tenant
    thread_id = uuid.uuid4()
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        await conversations.create_conversation(conn, thread_id, tenant_id, user_id)
    intruder = ChatCommand(
        tenant_id=tenant_id, user_id="intruder", thread_id=thread_id, message="hello", action="inquire"
    )
    async with running(lambda s: resolver_worker.serve(infra, s)):
        await publish(infra.bus, infra.bus.subjects.cmd_chat, intruder)
        events = await read_events(
            infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(intruder.run_id)
        )
    assert [e["type"] for e in events] == ["error"] and events[0]["code"] == "not_found"


async def test_long_conversation_keeps_ten_messages_and_a_summary(infra, tenant, embedder):
    """Architecture §7.5: past 15 messages the oldest are folded into `conversation_summary`; the UI
    history keeps all."""
    tenant_id, user_id = tenant
    thread_id = uuid.uuid4()
    questions = [f"Question {i}: how long is CCTV footage kept?" for i in range(8)]
    async with running(*services(infra)):
        for question in questions:
            cmd = await start_turn(infra, tenant_id, user_id, thread_id, question, action="inquire")
            await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(cmd.run_id))
    state = (await stage_graph(infra, {}).aget_state(thread_config(str(thread_id)))).values
    # Turn 8 brings 16 messages: all but the last 10 are summarized away.
    assert len(state["messages"]) == 10 and state["messages"][0].content == questions[3]
    assert state["conversation_summary"].startswith("The user asked: Question 0")
    assert "Question 2" in state["conversation_summary"] and "Question 3" not in state["conversation_summary"]
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        assert len(await conversations.history(conn, thread_id, 50)) == 8  # every assistant message stays


async def forget_stage(settings, run_id: uuid.UUID, stage: str) -> None:
    """As if the delivery that ran `stage` died (or lost its ack) before recording its outcome."""
    async with await psycopg.AsyncConnection.connect(settings.admin_url, autocommit=True) as conn:
        await conn.execute("DELETE FROM run_stages WHERE run_id = %s AND stage = %s", (run_id, stage))


async def test_commands_redelivered_after_the_turn_answered_never_rerun_it(infra, settings, tenant, embedder):
    """A chat command delivered again once its turn is answered (a NATS failover held its ack past
    the lease) does not resolve the turn again, and an action command delivered again answers with
    the same message, also after the thread's checkpoint moved on to the next turn."""
    tenant_id, user_id = tenant
    thread_id = uuid.uuid4()
    async with running(*services(infra)):
        doc = await ingested(infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf", title="Retention")
        first, events = await ask_about_cctv(infra, tenant_id, user_id, thread_id, doc.document_id)
        answer = events[-1]
        graph = stage_graph(infra, {})
        before = await graph.aget_state(thread_config(str(thread_id)))

        await forget_stage(settings, first.run_id, "resolve")
        await publish(infra.bus, infra.bus.subjects.cmd_chat, first, msg_id=f"{first.run_id}:again")
        await forget_stage(settings, first.run_id, "action")
        handoff = ActionCommand(
            run_id=first.run_id, tenant_id=tenant_id, user_id=user_id, thread_id=thread_id, action="inquire"
        )
        await publish(
            infra.bus, infra.bus.subjects.cmd_action("inquire"), handoff, msg_id=f"{first.run_id}:handoff-again"
        )
        await wait_for_stage(infra, tenant_id, user_id, first.run_id, "action")
        await wait_for_stage(infra, tenant_id, user_id, first.run_id, "resolve")
        after = await graph.aget_state(thread_config(str(thread_id)))

        second = await start_turn(infra, tenant_id, user_id, thread_id, "And server access logs?", action="inquire")
        async with tenant_tx(infra.db, tenant_id, user_id) as conn:  # as the gateway claims a turn
            assert await conversations.claim_thread(conn, thread_id, user_id, second.run_id, 300.0)
        await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(second.run_id))
        await forget_stage(settings, first.run_id, "action")
        await publish(infra.bus, infra.bus.subjects.cmd_action("inquire"), handoff, msg_id=f"{first.run_id}:late")
        await wait_for_stage(infra, tenant_id, user_id, first.run_id, "action")
        replay = await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(second.run_id))
        async with tenant_tx(infra.db, tenant_id, user_id) as conn:
            late = await conversations.stage_done(conn, first.run_id, "action")

    assert after.config["configurable"]["checkpoint_id"] == before.config["configurable"]["checkpoint_id"]
    first_run = [e for e in replay if e["run_id"] == str(first.run_id)]
    # Published again under the same message ids: JetStream kept one of each.
    assert [e["type"] for e in first_run] == [e["type"] for e in events]
    again = [e for e in first_run if e["type"] == "response"]
    assert len(again) == 1 and again[0]["message_id"] == answer["message_id"]
    assert again[0]["response"] == answer["response"] and again[0]["citations"] == answer["citations"]
    # The late delivery saw the thread held by the next turn: it published nothing for the checkpoint's newer state.
    assert late["outcome"]["superseded_by"] == str(second.run_id)


async def wait_for_stage(infra, tenant_id, user_id, run_id: uuid.UUID, stage: str, timeout: float = 30.0) -> None:
    async with asyncio.timeout(timeout):
        while True:
            async with tenant_tx(infra.db, tenant_id, user_id) as conn:
                if await conversations.stage_done(conn, run_id, stage) is not None:
                    return
            await asyncio.sleep(0.1)
