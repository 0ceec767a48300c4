"""A command redelivered while its first delivery still works (the lease lapsed: a starved worker
missed its heartbeats) is not a second run of the stage.

The turn waits for its attachment to be read, so no checkpoint names the run yet and nothing in the
thread tells the second delivery that the first one lives. Before the stage was held by one
delivery at a time, both waited, both ran the resolution from START, and the thread's history
forked within the turn; the later delivery then read the other's progress as its own outcome
("resolution stage ended the graph without reaching an action").
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter

import pytest
from nats.js.errors import NotFoundError

from services.actions import worker as action_worker
from services.gateway.routes.documents import document_fields
from services.ingest import worker as ingest_worker
from services.resolver import worker as resolver_worker
from services.retrieval import worker as retrieval_worker
from shared.bus.publish import publish
from shared.contracts import ChatCommand, IngestCommand
from shared.db import conversations
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from shared.graph.runner import thread_config
from shared.graph.stage import stage_graph
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.helpers import read_events, turn_finished

pytestmark = pytest.mark.integration


async def attach(infra, tenant_id, user_id) -> uuid.UUID:
    """A file attached to a message, as the gateway stores it: a queued document and its ingest job."""
    data = (EXAMPLES / "data-retention-policy.pdf").read_bytes()
    document_id = uuid.uuid4()
    cmd = IngestCommand(
        tenant_id=tenant_id,
        user_id=user_id,
        document_id=document_id,
        object_name=f"{tenant_id}/{document_id}",
        filename="data-retention-policy.pdf",
        title=f"Retention {document_id.hex[:8]}",
    )
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        await docs.insert_document(conn, document_fields(cmd, data, set_id=None, mime="application/pdf"))
    await (await infra.bus.uploads()).put(cmd.object_name, data)
    await publish(infra.bus, infra.bus.subjects.cmd_ingest, cmd, msg_id=f"ingest:{document_id}")
    return document_id


async def resolver_holds(infra, count: int) -> None:
    """Until every chat command was delivered to the resolver and `count` of them are not settled."""
    async with asyncio.timeout(60):
        while True:
            try:
                info = await infra.bus.js.consumer_info(infra.bus.subjects.commands_stream, "resolver-chat")
            except NotFoundError:  # the resolver has not bound its consumer yet
                info = None
            if info is not None and info.num_pending == 0 and info.num_ack_pending == count:
                return
            await asyncio.sleep(0.05)


async def test_a_command_redelivered_while_its_stage_waits_for_an_attachment_runs_the_stage_once(
    infra, tenant, embedder
):
    tenant_id, user_id = tenant
    thread_id = uuid.uuid4()
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        await conversations.create_conversation(conn, thread_id, tenant_id, user_id)
    async with running(
        lambda s: retrieval_worker.serve(infra, s),
        lambda s: resolver_worker.serve(infra, s),
        lambda s: action_worker.serve_action(infra, s, "inquire"),
    ):
        doc_id = await attach(infra, tenant_id, user_id)
        cmd = ChatCommand(
            tenant_id=tenant_id,
            user_id=user_id,
            thread_id=thread_id,
            message="How long is CCTV footage kept?",
            action="inquire",
            tagged_doc_ids=[doc_id],
            attachment_ids=[doc_id],
        )
        await publish(infra.bus, infra.bus.subjects.cmd_chat, cmd, msg_id=str(cmd.run_id))
        # What JetStream does once the first delivery's lease lapsed: the same command, again.
        await publish(infra.bus, infra.bus.subjects.cmd_chat, cmd, msg_id=f"{cmd.run_id}:redelivered")
        await resolver_holds(infra, 2)
        # Only now is the attachment read: the first delivery's wait outlasted the second's arrival.
        async with running(lambda s: ingest_worker.serve(infra, s)):
            events = await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(cmd.run_id))
            await resolver_holds(infra, 0)  # the second delivery settled too

    terminal = [e for e in events if e["type"] in ("response", "error", "interrupt")]
    assert [e["type"] for e in terminal] == ["response"], terminal
    assert "thirty days" in terminal[0]["response"]
    graph = stage_graph(infra, {})
    history = [s async for s in graph.aget_state_history(thread_config(str(thread_id)))]
    # One turn, one line of checkpoints: started once, and no checkpoint with two children.
    assert [s.metadata["source"] for s in history].count("input") == 1, [s.metadata for s in history]
    parents = Counter(s.parent_config["configurable"]["checkpoint_id"] for s in history if s.parent_config)
    assert max(parents.values()) == 1, parents
    assert [m.type for m in history[0].values["messages"]] == ["human", "ai"]
