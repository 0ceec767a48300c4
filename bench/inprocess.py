"""The same compiled graph the workers split between them, run whole in one process.

The baseline of `policypal bench turn`/`scale`: every node of every stage in one `StateGraph`,
compiled over the same Postgres checkpointer (`AsyncPostgresSaver`), with the same model engine
and the same retrieval service (its bus RPC, as the inquire worker calls it), so the difference to
a turn through the gateway is the orchestration: the command bus, the stage hand-offs, the event
stream and the gateway's own work.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from services.actions.worker import SHARED_NODES, action_node
from services.resolver.nodes import RESOLVER_NODES
from services.resolver.support import check_cache, contextualize
from shared.actions import action_names
from shared.bus.connection import Bus, connect_bus
from shared.config import Settings
from shared.contracts import ChatCommand
from shared.db import conversations
from shared.db.pool import Database, open_database, tenant_tx
from shared.embeddings.client import EmbeddingClient
from shared.embeddings.provider import use_embedding_service
from shared.graph.context import StageContext
from shared.graph.runner import thread_config
from shared.graph.state import turn_input
from shared.graph.topology import AgentGraph, compile_graph
from shared.llm.service import LLMService, build_provider

ALL_NODES = {
    **RESOLVER_NODES,
    "check_cache": check_cache,
    "contextualize": contextualize,
    **{action: action_node(action) for action in action_names()},
    **SHARED_NODES,
}


@dataclass
class InProcessRunner:
    """One process, one graph: `turn()` runs a chat turn to its end and times it."""

    settings: Settings
    bus: Bus
    db: Database
    graph: AgentGraph
    context: StageContext

    @classmethod
    async def open(cls, settings: Settings) -> InProcessRunner:
        bus = await connect_bus(settings, name="bench-in-process")
        # Every worker embeds through the embedding service (one model per system): so does this.
        use_embedding_service(EmbeddingClient.for_settings(bus, settings))
        db = await open_database(settings)
        llm = LLMService(settings, build_provider(settings), db)
        graph = compile_graph(ALL_NODES, AsyncPostgresSaver(db.checkpoint_pool))
        context = StageContext(settings=settings, bus=bus, db=db, llm=llm)
        return cls(settings=settings, bus=bus, db=db, graph=graph, context=context)

    async def close(self) -> None:
        await self.bus.close()
        await self.db.close()

    async def turn(self, tenant_id: str, user_id: str, body: dict) -> tuple[float, float, dict]:
        """(seconds to the first streamed chunk, seconds to the end, the final values) of one turn on
        a new thread; the conversation row is written before the clock starts, as the gateway does."""
        thread_id = uuid.uuid4()
        async with tenant_tx(self.db, tenant_id, user_id) as conn:
            await conversations.create_conversation(conn, thread_id, uuid.UUID(tenant_id), user_id)
        cmd = ChatCommand(run_id=uuid.uuid4(), tenant_id=tenant_id, user_id=user_id, thread_id=thread_id, **body)
        config = thread_config(str(thread_id))
        started = time.perf_counter()
        first = None
        # A partial AgentState built as a plain dict (it spreads TurnResult's JSON), passed as the
        # stage runner passes it (shared/graph/runner.py `graph_input: Any`).
        graph_input: Any = turn_input(cmd)
        async for _ in self.graph.astream(
            graph_input, config, context=self.context, stream_mode=["tasks", "updates", "custom"]
        ):
            first = first or time.perf_counter() - started
        total = time.perf_counter() - started
        values = (await self.graph.aget_state(config)).values
        return first or total, total, dict(values)
