"""Typed request-reply calls to the retrieval worker (`pp.rpc.retrieval.search` and `.sample`).

The action nodes search through this; it lives beside the contracts, not in the retrieval
service, so that no service imports another.
"""

from __future__ import annotations

from typing import TypeVar

from opentelemetry import trace
from opentelemetry.trace import SpanKind
from pydantic import BaseModel, ValidationError

from shared.bus import rpc
from shared.bus.connection import Bus
from shared.contracts import RpcError, SampleRequest, SampleResponse, SearchRequest, SearchResponse

_tracer = trace.get_tracer(__name__)


class RetrievalError(RuntimeError):
    pass


Reply = TypeVar("Reply", bound=BaseModel)


async def _request(bus: Bus, subject: str, request: BaseModel, reply_model: type[Reply], timeout: float) -> Reply:
    with _tracer.start_as_current_span(
        f"{subject} request", kind=SpanKind.CLIENT, attributes={"messaging.destination.name": subject}
    ):
        body = await rpc.request(bus, subject, request.model_dump_json().encode(), timeout)
    try:
        return reply_model.model_validate_json(body)
    except ValidationError:
        error = RpcError.model_validate_json(body)
        raise RetrievalError(f"{error.error}: {error.message}") from None


async def search(bus: Bus, request: SearchRequest, timeout: float = 10.0) -> SearchResponse:
    return await _request(bus, bus.subjects.rpc_search, request, SearchResponse, timeout)


async def sample(bus: Bus, request: SampleRequest, timeout: float = 10.0) -> SampleResponse:
    return await _request(bus, bus.subjects.rpc_sample, request, SampleResponse, timeout)
