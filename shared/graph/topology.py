"""The one StateGraph every worker compiles; each worker supplies only its own stage's nodes.

A node a worker does not own is compiled as a guard that raises: a resolver must never run an
action and an action worker must never re-resolve, so a mis-routed run fails loudly instead of
doing another stage's work in the wrong process.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from shared.contracts import ACTIONS
from shared.graph.context import StageContext
from shared.graph.state import AgentState

RESOLUTION_NODES: tuple[str, ...] = ("intent_resolver", "doc_resolver", "validate_inputs")
ACTION_NODES: tuple[str, ...] = ACTIONS
FORMAT_NODE = "format_response"
ALL_NODES: tuple[str, ...] = (*RESOLUTION_NODES, *ACTION_NODES, FORMAT_NODE)

Node = Callable[..., Awaitable[dict[str, Any]] | dict[str, Any]]


class WrongStageError(RuntimeError):
    pass


def _foreign(name: str) -> Node:
    async def guard(state: AgentState) -> dict[str, Any]:
        raise WrongStageError(f"node {name!r} runs only in its own stage's worker")

    guard.__name__ = f"foreign_{name}"
    return guard


def route_action(state: AgentState) -> str:
    if state.get("cancelled"):
        return FORMAT_NODE
    action = state.get("action")
    if action not in ACTION_NODES:
        raise ValueError(f"validate_inputs left no valid action (got {action!r})")
    return action


def build_graph(nodes: Mapping[str, Node]) -> StateGraph:
    unknown = set(nodes) - set(ALL_NODES)
    if unknown:
        raise ValueError(f"unknown nodes: {sorted(unknown)}")
    graph = StateGraph(AgentState, context_schema=StageContext)
    for name in ALL_NODES:
        graph.add_node(name, nodes.get(name) or _foreign(name))
    graph.add_edge(START, "intent_resolver")
    graph.add_edge("intent_resolver", "doc_resolver")
    graph.add_edge("doc_resolver", "validate_inputs")
    graph.add_conditional_edges("validate_inputs", route_action, [*ACTION_NODES, FORMAT_NODE])
    for action in ACTION_NODES:
        graph.add_edge(action, FORMAT_NODE)
    graph.add_edge(FORMAT_NODE, END)
    return graph


def compile_graph(nodes: Mapping[str, Node], checkpointer: BaseCheckpointSaver) -> CompiledStateGraph:
    return build_graph(nodes).compile(checkpointer=checkpointer)
