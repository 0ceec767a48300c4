"""The one StateGraph every worker compiles; each worker supplies only its own stage's nodes.

A node a worker does not own is compiled as a guard that raises: a resolver must never run an
action and an action worker must never re-resolve, so a mis-routed run fails loudly instead of
doing another stage's work in the wrong process.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from shared.actions import action_names, action_spec, action_specs
from shared.graph.context import StageContext
from shared.graph.state import AgentState

RESOLUTION_NODES: tuple[str, ...] = ("intent_resolver", "doc_resolver", "validate_inputs")
# Support mode (docs/architecture.md §8): the resolver checks the cache and makes the question standalone; the
# support action's worker grades its answer and escalates to a human below the threshold.
SUPPORT_RESOLUTION_NODES: tuple[str, ...] = ("check_cache", "contextualize")
SUPPORT_ANSWER_NODES: tuple[str, ...] = ("grade_confidence", "escalate")
# The action that answers a support question (its record lists SUPPORT_ANSWER_NODES as extra nodes).
SUPPORT_ACTION = "inquire"
FORMAT_NODE = "format_response"


def action_nodes() -> tuple[str, ...]:
    """One node per action of the table (shared/actions), named after it."""
    return action_names()


def all_nodes() -> tuple[str, ...]:
    return (*RESOLUTION_NODES, *SUPPORT_RESOLUTION_NODES, *action_nodes(), *SUPPORT_ANSWER_NODES, FORMAT_NODE)


def worker_nodes(worker: str) -> tuple[str, ...]:
    """Which nodes a worker runs: the resolver, or the worker of one action, which also runs the
    action's extra nodes and formats the answer."""
    if worker == "resolver":
        return (*SUPPORT_RESOLUTION_NODES, *RESOLUTION_NODES)
    spec = action_spec(worker)
    return (spec.name, *spec.extra_nodes, FORMAT_NODE)


def resolver_breakpoints() -> tuple[str, ...]:
    """The resolver stops before any action's node: that action's worker takes the run on from there."""
    return (*action_nodes(), FORMAT_NODE)


# The status line the client shows while a node runs (feature spec, PalReasoning; support PRD for the
# support nodes; an action's comes from its record). Every node has one: the widget's anonymous
# customers must never read an internal node name, so a node missing here is a defect a test
# catches, not a name on screen.
NODE_STATUS_TEXTS: dict[str, str] = {
    "check_cache": "Checking what we already know...",
    "contextualize": "Reformulating your question...",
    "grade_confidence": "Checking the answer...",
    "escalate": "Passing your question to our team...",
    "intent_resolver": "Clarifying intent...",
    "doc_resolver": "Finding documents...",
    "validate_inputs": "Validating request...",
    "format_response": "Formatting response...",
}


def status_texts() -> dict[str, str]:
    return {**NODE_STATUS_TEXTS, **{spec.name: spec.status for spec in action_specs()}}


# A node returns its state update, or a LangGraph `Command` (an update and where to go next).
NodeResult: TypeAlias = dict[str, Any] | Command[Any]
Node: TypeAlias = Callable[..., Awaitable[NodeResult] | NodeResult]


# Nodes whose status the node itself announces, only when it has work to show: intent_resolver says
# "Clarifying intent..." only when it must classify (an explicitly tagged action shows no status for
# that step; feature spec, PalReasoning edge cases).
SELF_ANNOUNCED: frozenset[str] = frozenset({"intent_resolver"})
WORKING = "Working on it..."


def status_text(node: str) -> str:
    return status_texts().get(node, WORKING)


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
    if action not in action_nodes():
        raise ValueError(f"validate_inputs left no valid action (got {action!r})")
    return action


def route_mode(state: AgentState) -> str:
    return "check_cache" if state.get("mode") == "support" else "intent_resolver"


def route_cache(state: AgentState) -> str:
    return FORMAT_NODE if state.get("cache_hit") else "contextualize"


def route_answer(state: AgentState) -> str:
    return "grade_confidence" if state.get("mode") == "support" else FORMAT_NODE


def build_graph(nodes: Mapping[str, Node]) -> StateGraph[AgentState, StageContext, AgentState, AgentState]:
    unknown = set(nodes) - set(all_nodes())
    if unknown:
        raise ValueError(f"unknown nodes: {sorted(unknown)}")
    graph = StateGraph(AgentState, context_schema=StageContext)
    for name in all_nodes():
        graph.add_node(name, nodes.get(name) or _foreign(name))
    graph.add_conditional_edges(START, route_mode, ["intent_resolver", "check_cache"])
    graph.add_edge("intent_resolver", "doc_resolver")
    graph.add_edge("doc_resolver", "validate_inputs")
    graph.add_conditional_edges("validate_inputs", route_action, [*action_nodes(), FORMAT_NODE])
    graph.add_conditional_edges("check_cache", route_cache, ["contextualize", FORMAT_NODE])
    graph.add_edge("contextualize", SUPPORT_ACTION)
    for spec in action_specs():
        if spec.extra_nodes:
            graph.add_conditional_edges(spec.name, route_answer, [spec.extra_nodes[0], FORMAT_NODE])
        else:
            graph.add_edge(spec.name, FORMAT_NODE)
    graph.add_edge("escalate", FORMAT_NODE)
    graph.add_edge(FORMAT_NODE, END)
    return graph


# The compiled graph every stage runs, typed by its state and its runtime context.
AgentGraph: TypeAlias = CompiledStateGraph[AgentState, StageContext, AgentState, AgentState]


def compile_graph(nodes: Mapping[str, Node], checkpointer: BaseCheckpointSaver) -> AgentGraph:
    return build_graph(nodes).compile(checkpointer=checkpointer)
