"""`/lg` read as LangGraph's own server reads requests, on the in-process gateway with real workers:
bodies whatever their Content-Type, unknown fields ignored (and still refused on `/v1`), `/ok`, the
assistant's graph, thread copies, unique SSE ids, checkpoint metadata, and Agent Chat UI's "Mark as
resolved". The Python SDK drives the same surface in tests/e2e/test_langgraph_sdk.py."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from services.actions import worker as action_worker
from services.ingest import worker as ingest_worker
from services.resolver import worker as resolver_worker
from services.retrieval import worker as retrieval_worker
from shared.auth.tokens import mint_token
from shared.db import conversations
from shared.db.pool import tenant_tx
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.helpers import ingest_finished, read_events, submit_file
from tests.integration.test_gateway import SECRET, gateway_client
from tests.integration.test_support_widget import sse_events
from tests.integration.test_turn import services

pytestmark = pytest.mark.integration


@pytest.fixture
async def lg(settings, infra, tenant, embedder):
    tenant_id, user_id = tenant
    summarizer = lambda s: action_worker.serve_action(infra, s, "summarize")  # noqa: E731
    async with running(*services(infra), summarizer):
        doc = await submit_file(
            infra,
            tenant_id,
            user_id,
            EXAMPLES / "texts" / "data-retention-policy.md",
            title="Retention Policy",
            doc_type="company_policy",
        )
        await read_events(infra, infra.bus.subjects.evt_ingest(doc.document_id), until=ingest_finished)
        token = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)
        async with gateway_client(settings, token) as client:
            yield client, str(doc.document_id)


def human(text: str, doc_id: str, **options) -> dict:
    return {"messages": [{"type": "human", "content": text}], "tagged_doc_ids": [doc_id], **options}


async def test_bodies_are_json_whatever_the_content_type_and_unknown_fields_are_ignored(lg):
    client, doc_id = lg
    tid = (await client.post("/lg/threads", json={})).json()["thread_id"]
    body = {"input": human("How long is CCTV footage kept?", doc_id, action="inquire"), "raise_error": True}
    answer = await client.post(
        f"/lg/threads/{tid}/runs/wait", content=json.dumps(body), headers={"Content-Type": "text/plain;charset=UTF-8"}
    )
    assert answer.status_code == 200, answer.text
    assert "thirty days" in answer.json()["messages"][-1]["content"]
    strict = await client.post("/v1/chat", json={"message": "hi", "raise_error": True})
    assert strict.status_code == 422 and "raise_error" in strict.text

    history = (await client.post(f"/lg/threads/{tid}/history", json={"limit": 20})).json()
    [run] = (await client.get(f"/lg/threads/{tid}/runs")).json()
    assert run["multitask_strategy"] == "enqueue"  # LangGraph's default
    mine = [c for c in history if c["metadata"].get("run_id") == run["run_id"]]
    assert mine and all(c["metadata"]["graph_id"] == "policypal" for c in mine)
    assert history[0]["next"] == [] and history[0]["tasks"] == []


async def test_ok_and_the_assistants_graph(lg):
    client, _ = lg
    assert (await client.get("/lg/ok")).json() == {"ok": True}
    graph = (await client.get("/lg/assistants/policypal/graph")).json()
    nodes = {n["id"] for n in graph["nodes"]}
    assert {"intent_resolver", "doc_resolver", "validate_inputs", "inquire", "compare", "format_response"} <= nodes
    edges = {(e["source"], e["target"]) for e in graph["edges"]}
    assert ("intent_resolver", "doc_resolver") in edges and ("format_response", "__end__") in edges
    assert (await client.get("/lg/assistants/nobody/graph")).status_code == 404


async def test_sse_ids_are_unique_and_a_copy_keeps_the_pending_question(lg):
    client, doc_id = lg
    tid = (await client.post("/lg/threads", json={})).json()["thread_id"]
    ask = {"input": human("Summarize and audit this", doc_id), "stream_mode": ["values", "updates"]}
    streamed = await client.post(f"/lg/threads/{tid}/runs/stream", json=ask)
    events = sse_events(streamed)
    ids = [e["_id"] for e in events]
    assert events[0]["type"] == "metadata" and events[0]["_id"] == "-1"
    assert all(ids) and len(ids) == len(set(ids)), ids  # every event its own id

    copy = await client.post(f"/lg/threads/{tid}/copy")
    assert copy.status_code == 200, copy.text
    twin = copy.json()
    assert twin["thread_id"] != tid and twin["status"] == "interrupted"
    before = (await client.get(f"/lg/threads/{tid}")).json()
    assert [m["content"] for m in twin["values"]["messages"]] == [m["content"] for m in before["values"]["messages"]]
    assert twin["values"]["messages"][0]["content"] == "Summarize and audit this"
    answered = await client.post(
        f"/lg/threads/{twin['thread_id']}/runs/wait", json={"command": {"resume": {"decisions": [{"type": "approve"}]}}}
    )
    assert answered.json()["messages"][-1]["response_metadata"].get("action") == "summarize", answered.text
    original = (await client.get(f"/lg/threads/{tid}")).json()
    # The copy is a thread of its own: its answer went to it, not to the thread it was copied from.
    assert original["status"] == "interrupted" and original["values"] == before["values"]
    assert (await client.post(f"/lg/threads/{uuid.uuid4()}/copy")).status_code == 404


async def test_mark_as_resolved_closes_the_question(lg):
    client, doc_id = lg
    tid = (await client.post("/lg/threads", json={})).json()["thread_id"]
    asked = await client.post(f"/lg/threads/{tid}/runs/wait", json={"input": human("Summarize and audit this", doc_id)})
    assert asked.json()["__interrupt__"][0]["value"]["interrupt_type"] == "action_choice"
    refused = await client.post(f"/lg/threads/{tid}/runs/wait", json={"command": {"resume": "delete everything"}})
    assert refused.status_code == 422 and refused.json()["error"]["details"] == {"field": "command.resume"}
    v1 = {"thread_id": tid, "resume_value": {"type": "action_choice", "value": "delete everything"}}
    strict = await client.post("/v1/chat/resume", json=v1)  # /v1 checks answers the same way
    assert strict.status_code == 422 and strict.json()["error"]["details"] == {"field": "resume_value.value"}
    closed = await client.post(f"/lg/threads/{tid}/runs/wait", json={"command": {"goto": "__end__"}})
    assert closed.status_code == 200, closed.text
    assert "__interrupt__" not in closed.json()
    assert closed.json()["messages"][-1]["response_metadata"]["cancelled"] is True
    assert (await client.get(f"/lg/threads/{tid}")).json()["status"] == "idle"


async def test_a_run_between_stages_is_busy_and_a_rejoin_picks_it_up(settings, infra, tenant, embedder):
    """Agent Chat UI's Cancel only aborts the browser's request: the run goes on. While it waits
    between its stages (no inquire worker yet), the thread is `busy` and no checkpoint shows a
    `next` to continue; a client joining with `Last-Event-ID: -1` gets the whole run once it ends."""
    tenant_id, user_id = tenant
    first_half = (
        lambda s: ingest_worker.serve(infra, s),
        lambda s: retrieval_worker.serve(infra, s),
        lambda s: resolver_worker.serve(infra, s),
    )
    token = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)
    async with gateway_client(settings, token) as client:
        async with running(*first_half):
            doc = await submit_file(
                infra, tenant_id, user_id, EXAMPLES / "texts" / "data-retention-policy.md", title="Retention Policy"
            )
            await read_events(infra, infra.bus.subjects.evt_ingest(doc.document_id), until=ingest_finished)
            tid = (await client.post("/lg/threads", json={})).json()["thread_id"]
            body = {"input": human("How long is CCTV footage kept?", str(doc.document_id), action="inquire")}
            run = (await client.post(f"/lg/threads/{tid}/runs", json=body)).json()
            for _ in range(200):
                async with tenant_tx(infra.db, tenant_id, user_id) as conn:
                    handed = await conversations.stage_done(conn, uuid.UUID(run["run_id"]), "resolve")
                if handed is not None:
                    break
                await asyncio.sleep(0.1)
            assert handed is not None and handed["outcome"]["handoff"] == "inquire", handed
            thread = (await client.get(f"/lg/threads/{tid}")).json()
            state = (await client.get(f"/lg/threads/{tid}/state")).json()
            history = (await client.post(f"/lg/threads/{tid}/history", json={"limit": 20})).json()
            assert thread["status"] == "busy" and thread["interrupts"] == {}
            assert state["next"] == [] and state["tasks"] == [] and state["interrupts"] == []
            assert history and all(c["next"] == [] for c in history)
            async with running(lambda s: action_worker.serve_action(infra, s, "inquire")):
                rejoined = await client.get(
                    f"/lg/threads/{tid}/runs/{run['run_id']}/stream", headers={"Last-Event-ID": "-1"}
                )
        events = sse_events(rejoined)
    assert events[0]["type"] == "metadata" and events[-1]["type"] == "values", [e["type"] for e in events]
    assert "thirty days" in events[-1]["messages"][-1]["content"]
    ids = [e["_id"] for e in events]
    assert all(ids) and len(ids) == len(set(ids)), ids
