"""A stage that broke off right after a node finished is continued by the command's redelivery.

When publishing an event fails (a NATS node failing over), the stage stops between a node's end
and the next step: LangGraph keeps the node's writes but writes no new checkpoint, so the thread's
snapshot shows nothing `next` although the run is unanswered. The redelivered command must go on
from there — not resolve the turn from START again, and not give up on it as "finished".
"""

from __future__ import annotations

import asyncio
import uuid

import pytest

from services.actions import worker as action_worker
from services.actions.format_response import format_response
from services.actions.inquire import inquire
from services.ingest import worker as ingest_worker
from services.resolver import worker as resolver_worker
from services.resolver.nodes import RESOLVER_NODES
from services.retrieval import worker as retrieval_worker
from shared.bus.publish import publish
from shared.contracts import ActionCommand, ChatCommand
from shared.db import conversations
from shared.db.pool import tenant_tx
from shared.graph.runner import thread_config
from shared.graph.stage import StageWorker, stage_graph, stage_llm
from shared.graph.state import turn_input
from shared.graph.topology import FORMAT_NODE, resolver_breakpoints
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.helpers import ingested, read_events, turn_finished

pytestmark = pytest.mark.integration

QUESTION = "How long is CCTV footage kept?"


async def break_off_after(worker: StageWorker, graph_input, config, node: str, **options) -> None:
    """Run the stage as a worker does (same stream modes) and break it off where a worker's status
    publish for `node`'s update fails: `node` finished, and its writes saved while the publish
    waited (here: until the snapshot shows them), but no checkpoint after it."""
    modes = ["tasks", "updates", "custom"]
    stream = worker.graph.astream(graph_input, config, context=worker.context, stream_mode=modes, **options)
    async for mode, chunk in stream:
        if mode == "updates" and node in chunk:
            async with asyncio.timeout(10):
                while (await worker.graph.aget_state(config)).next:
                    await asyncio.sleep(0.05)
            await stream.aclose()
            return
    raise AssertionError(f"{node} never finished")


async def new_turn(infra, tenant_id, user_id) -> ChatCommand:
    thread_id = uuid.uuid4()
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        await conversations.create_conversation(conn, thread_id, tenant_id, user_id)
    return ChatCommand(tenant_id=tenant_id, user_id=user_id, thread_id=thread_id, message=QUESTION, action="inquire")


async def test_broken_off_stages_are_continued_by_their_redelivered_commands(infra, tenant, embedder):
    tenant_id, user_id = tenant
    llm = stage_llm(infra)
    resolver = resolver_worker.Resolver(infra=infra, graph=stage_graph(infra, RESOLVER_NODES), stage="resolve", llm=llm)
    answerer = action_worker.ActionWorker(
        infra=infra,
        graph=stage_graph(infra, {"inquire": inquire, FORMAT_NODE: format_response}),
        stage="action",
        llm=llm,
    )
    async with running(
        lambda s: ingest_worker.serve(infra, s),
        lambda s: retrieval_worker.serve(infra, s),
    ):
        doc = await ingested(infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf", title="Retention")

        # The resolver broke off after doc_resolver, another turn's action worker after inquire.
        in_resolution = await new_turn(infra, tenant_id, user_id)
        in_resolution = in_resolution.model_copy(update={"tagged_doc_ids": [doc.document_id]})
        config = thread_config(str(in_resolution.thread_id))
        await break_off_after(
            resolver, turn_input(in_resolution), config, "doc_resolver", interrupt_before=resolver_breakpoints()
        )
        assert not (await resolver.graph.aget_state(config)).next  # what the redelivery finds

        in_action = await new_turn(infra, tenant_id, user_id)
        in_action = in_action.model_copy(update={"tagged_doc_ids": [doc.document_id]})
        action_config = thread_config(str(in_action.thread_id))
        await resolver.graph.ainvoke(
            turn_input(in_action), action_config, context=resolver.context, interrupt_before=resolver_breakpoints()
        )
        await break_off_after(answerer, None, action_config, "inquire")
        assert not (await answerer.graph.aget_state(action_config)).next

        async with running(
            lambda s: resolver_worker.serve(infra, s),
            lambda s: action_worker.serve_action(infra, s, "inquire"),
        ):
            await publish(infra.bus, infra.bus.subjects.cmd_chat, in_resolution, msg_id=str(in_resolution.run_id))
            handoff = ActionCommand(
                **in_action.model_dump(include={"run_id", "tenant_id", "user_id", "thread_id"}), action="inquire"
            )
            await publish(infra.bus, infra.bus.subjects.cmd_action("inquire"), handoff, msg_id=f"{handoff.run_id}:h")
            streams = [
                await read_events(infra, infra.bus.subjects.evt_thread(cmd.thread_id), until=turn_finished(cmd.run_id))
                for cmd in (in_resolution, in_action)
            ]

    for cmd, events in zip((in_resolution, in_action), streams, strict=True):
        terminal = [e for e in events if e["type"] in ("response", "error", "interrupt")]
        assert [e["type"] for e in terminal] == ["response"], terminal
        assert "thirty days" in terminal[0]["response"]
        state = (await resolver.graph.aget_state(thread_config(str(cmd.thread_id)))).values
        # Resolved once: one human message, one answer.
        assert [m.type for m in state["messages"]] == ["human", "ai"]
