"""The LangGraph Agent Server surface under `/lg`, for `langgraph-sdk`, `useStream` and Agent Chat UI.

Served by the gateway over the same bus and workers as `/v1`: nothing runs the graph here.
"""

from fastapi import APIRouter

from services.gateway.errors import documented_errors
from services.gateway.routes.langgraph import meta, protocol, protocol_socket, runs, thread_join, threads

router = APIRouter(
    prefix="/lg",
    tags=["langgraph"],
    responses=documented_errors(400, 401, 403, 404, 409, 413, 422, 429, 503),
)
for module in (meta, threads, runs, protocol, protocol_socket, thread_join):
    router.include_router(module.router)
