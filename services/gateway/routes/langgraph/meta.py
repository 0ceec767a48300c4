"""`/lg/info`, `/lg/ok` and the one assistant, `policypal` (the workspace agent), with its graph."""

from __future__ import annotations

from importlib.metadata import version
from typing import Annotated, Any

from fastapi import APIRouter, Query

from services.gateway.deps import Gateway
from services.gateway.errors import not_found
from services.gateway.routes.langgraph.bodies import JsonBodyRoute
from services.gateway.routes.langgraph.common import ASSISTANT, ASSISTANT_ID, known_assistant
from services.gateway.routes.langgraph.deps import LgUser
from shared.contracts.langgraph import AssistantSearch, LgAssistant, LgInfo, LgInput

router = APIRouter(route_class=JsonBodyRoute)


@router.get("/info", response_model=LgInfo)
async def info() -> LgInfo:
    """Server information; no token needed (clients probe it before signing in)."""
    return LgInfo(
        version=f"policypal-{version('policypal')}",
        langgraph_py_version=version("langgraph"),
        flags={"assistants": True, "crons": False, "langsmith": False, "langsmith_tracing_replicas": False},
        metadata={"surface": "PolicyPal LangGraph-compatible API", "resumable_streams": "always"},
    )


@router.get("/ok")
async def ok() -> dict[str, bool]:
    """Liveness, as LangGraph's server answers it; no token needed."""
    return {"ok": True}


@router.post("/assistants/search", response_model=list[LgAssistant])
async def search_assistants(body: AssistantSearch, _: LgUser) -> list[LgAssistant]:
    matches = (body.graph_id in (None, ASSISTANT_ID)) and (body.name in (None, ASSISTANT.name))
    matches = matches and all(ASSISTANT.metadata.get(k) == v for k, v in (body.metadata or {}).items())
    return [ASSISTANT][body.offset : body.offset + body.limit] if matches else []


@router.get("/assistants/{assistant_id}", response_model=LgAssistant)
async def get_assistant(assistant_id: str, _: LgUser) -> LgAssistant:
    if not known_assistant(assistant_id):
        raise not_found(f"assistant {assistant_id}")
    return ASSISTANT


@router.get("/assistants/{assistant_id}/schemas")
async def assistant_schemas(assistant_id: str, _: LgUser) -> dict:
    """The run input PolicyPal reads (messages plus its chat options)."""
    if not known_assistant(assistant_id):
        raise not_found(f"assistant {assistant_id}")
    return {
        "graph_id": ASSISTANT_ID,
        "input_schema": LgInput.model_json_schema(),
        "output_schema": None,
        "state_schema": None,
        "config_schema": None,
        "context_schema": None,
    }


@router.get("/assistants/{assistant_id}/graph")
async def assistant_graph(
    assistant_id: str,
    _: LgUser,
    gw: Gateway,
    xray: Annotated[bool | int, Query(description="Accepted; the graph has no subgraphs to expand.")] = False,
) -> dict[str, Any]:
    """The agent's nodes and edges as the compiled LangGraph has them (resolution stage, the four
    actions, support mode's nodes, format_response), in LangGraph's drawable JSON."""
    if not known_assistant(assistant_id):
        raise not_found(f"assistant {assistant_id}")
    return gw.graph_view.get_graph().to_json()
