"""Stopping a running turn for real (POST /v1/threads/{id}/cancel) and serving a document's original
bytes (GET /v1/documents/{id}/file), on real NATS, Postgres and LangGraph checkpoints."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from services.actions import worker as action_worker
from services.ingest import worker as ingest_worker
from services.resolver import worker as resolver_worker
from services.retrieval import worker as retrieval_worker
from shared.auth.tokens import mint_token
from shared.bus.publish import publish
from shared.contracts import ChatCommand
from shared.db import conversations
from shared.db.pool import tenant_tx
from shared.db.tenants import ensure_tenant
from shared.graph.runner import thread_config
from shared.graph.stage import stage_graph
from shared.runtime.service import Infra
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.helpers import ingest_finished, read_events, submit_file, turn_finished
from tests.integration.test_gateway import SECRET, gateway_client

pytestmark = pytest.mark.integration

# Slow enough that a stop lands in the middle of the answer's stream.
PACED = {"offline_delta_interval_s": 0.4}


def services(infra: Infra):
    return (
        lambda s: ingest_worker.serve(infra, s),
        lambda s: retrieval_worker.serve(infra, s),
        lambda s: resolver_worker.serve(infra, s),
        lambda s: action_worker.serve_action(infra, s, "inquire"),
    )


async def open_turn(infra: Infra, tenant_id: uuid.UUID, user_id: str, thread_id: uuid.UUID, **fields) -> ChatCommand:
    """What POST /v1/chat does before publishing: the thread is claimed by the run."""
    cmd = ChatCommand(tenant_id=tenant_id, user_id=user_id, thread_id=thread_id, action="inquire", **fields)
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        await conversations.create_conversation(conn, thread_id, tenant_id, user_id)
        assert await conversations.claim_thread(conn, thread_id, user_id, cmd.run_id, 300)
    await publish(infra.bus, infra.bus.subjects.cmd_chat, cmd, msg_id=str(cmd.run_id))
    return cmd


async def test_stop_ends_the_run_mid_stream_and_the_thread_takes_the_next_turn(settings, infra, tenant):
    paced = Infra(settings=settings.model_copy(update=PACED), bus=infra.bus, db=infra.db)
    tenant_id, user_id = tenant
    thread_id = uuid.uuid4()
    token = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)
    subject = infra.bus.subjects.evt_thread(thread_id)
    async with running(*services(paced)), gateway_client(settings, token) as client:
        doc = await submit_file(infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf", title="Retention")
        await read_events(infra, infra.bus.subjects.evt_ingest(doc.document_id), until=ingest_finished)
        question = "How long is CCTV footage kept and who may see it?"
        first = await open_turn(
            infra, tenant_id, user_id, thread_id, message=question, tagged_doc_ids=[doc.document_id]
        )
        await read_events(infra, subject, until=lambda e: e.get("type") == "token")

        stop = await client.post(f"/v1/threads/{thread_id}/cancel")
        assert stop.status_code == 202, stop.text
        assert stop.json() == {"thread_id": str(thread_id), "run_id": str(first.run_id), "status": "stopping"}
        events = await read_events(infra, subject, until=turn_finished(first.run_id), timeout=20)
        await asyncio.sleep(2.0)  # time for any work the worker might wrongly still do
        after = await read_events(infra, subject, until=turn_finished(first.run_id), timeout=20)

        end = events[-1]
        said = "".join(e["text"] for e in events if e["type"] == "token")
        assert end["type"] == "response" and end["stopped"] is True
        assert end["response"] == said.strip() and said
        assert len(after) == len(events), "the worker published more for a stopped run"
        assert "format_response" not in [e.get("node") for e in events if e["type"] == "status"]
        async with tenant_tx(infra.db, tenant_id, user_id) as conn:
            assert await conversations.running_run(conn, thread_id, user_id) is None
            rows = await conversations.history(conn, thread_id, 10)
            assert (await conversations.stage_done(conn, first.run_id, "action"))["outcome"]["stopped"] is True
        assert [r["role"] for r in rows] == ["assistant"] and rows[0]["metadata"]["stopped"] is True
        assert rows[0]["content"] == said.strip()
        checkpoint = await stage_graph(infra, {}).aget_state(thread_config(str(thread_id)))
        assert checkpoint.next == () and checkpoint.values["cancelled"] is True

        idle = await client.post(f"/v1/threads/{thread_id}/cancel")
        assert idle.status_code == 409 and idle.json()["error"]["code"] == "not_running"

        second = await open_turn(infra, tenant_id, user_id, thread_id, message="Who may see the footage?")
        answer = (await read_events(infra, subject, until=turn_finished(second.run_id), timeout=60))[-1]
        assert answer["type"] == "response" and not answer["stopped"] and answer["response"]


async def test_stop_before_the_stage_starts_is_honoured(settings, infra, tenant):
    """A stop recorded while the command waits in the queue: the stage never runs."""
    tenant_id, user_id = tenant
    thread_id = uuid.uuid4()
    token = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)
    cmd = await open_turn(infra, tenant_id, user_id, thread_id, message="What is the retention period?")
    async with gateway_client(settings, token) as client:
        assert (await client.post(f"/v1/threads/{thread_id}/cancel")).status_code == 202
    async with running(*services(infra)):
        events = await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(cmd.run_id))
    assert [e["type"] for e in events] == ["response"]
    assert events[0]["stopped"] is True and events[0]["response"] == ""


async def test_cancel_is_404_for_another_users_thread(settings, infra, tenant):
    tenant_id, user_id = tenant
    thread_id = uuid.uuid4()
    await open_turn(infra, tenant_id, user_id, thread_id, message="anything")
    other_tenant = mint_token(SECRET, tenant_id=uuid.uuid4(), sub=user_id)
    await ensure_tenant(settings.admin_url, tenant_id, "Test tenant", "colleague")
    colleague = mint_token(SECRET, tenant_id=tenant_id, sub="colleague")
    for token in (other_tenant, colleague):
        async with gateway_client(settings, token) as client:
            response = await client.post(f"/v1/threads/{thread_id}/cancel")
            assert response.status_code == 404, response.text
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        assert await conversations.running_run(conn, thread_id, user_id) is not None


async def test_document_file_is_the_upload_under_the_same_visibility_rules(settings, infra, tenant):
    tenant_id, user_id = tenant
    pdf = (EXAMPLES / "aml-policy.pdf").read_bytes()
    owner = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)
    async with gateway_client(settings, owner) as client:
        created = await client.post(
            "/v1/documents", files={"file": ("aml.pdf", pdf, "application/pdf")}, data={"title": "AML"}
        )
        assert created.status_code == 202, created.text
        document_id = created.json()["id"]
        got = await client.get(f"/v1/documents/{document_id}/file")
        assert got.status_code == 200 and got.content == pdf
        assert got.headers["content-type"] == "application/pdf"
        assert got.headers["content-disposition"].startswith("inline")
        assert "sandbox" in got.headers["content-security-policy"]
        assert (await client.get(f"/v1/documents/{uuid.uuid4()}/file")).status_code == 404
        assert (await client.get("/v1/documents/not-a-uuid/file")).status_code == 422
    await ensure_tenant(settings.admin_url, tenant_id, "Test tenant", "colleague")
    for token in (
        mint_token(SECRET, tenant_id=tenant_id, sub="colleague"),
        mint_token(SECRET, tenant_id=uuid.uuid4(), sub=user_id),
    ):
        async with gateway_client(settings, token) as client:
            response = await client.get(f"/v1/documents/{document_id}/file")
            assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
