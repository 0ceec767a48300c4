"""The graph `langgraph dev` serves for `policypal bench peer`: PolicyPal's one graph, every node.

`langgraph dev` compiles what it loads with its own (in-memory) checkpointer and passes only JSON as
run context, while our nodes take live objects (bus, database pools, the LLM service) as their
runtime context. So the served graph is one node that runs the same compiled graph as a subgraph
(it inherits the server's checkpointer) with that context, built once per server process the way
`bench/inprocess.py` builds it: same offline engine, same embedding service and retrieval RPC.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph

from bench.inprocess import ALL_NODES, InProcessRunner
from shared.config import Settings
from shared.graph.context import StageContext
from shared.graph.state import AgentState
from shared.graph.topology import build_graph

INNER = build_graph(ALL_NODES).compile()
_runner: InProcessRunner | None = None


async def _context() -> StageContext:
    global _runner
    if _runner is None:
        _runner = await InProcessRunner.open(Settings())
    return _runner.context


async def policypal(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
    return await INNER.ainvoke(state, config, context=await _context())


_outer = StateGraph(AgentState)
_outer.add_node("policypal", policypal)
_outer.add_edge(START, "policypal")
_outer.add_edge("policypal", END)
graph = _outer.compile()
