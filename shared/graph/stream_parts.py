"""The custom stream between nodes and the stage runner (docs/architecture.md §5): what a node
writes with LangGraph's stream writer, typed, so writers and the runner agree on one shape.

- a status part: a status line for the thread (`status` event), optionally with its own message
  (a model notice) or the web query being searched;
- a token part: a piece of the answer as it is written (`token` event).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NotRequired, TypedDict, final

from langgraph.config import get_stream_writer


class StatusFields(TypedDict):
    node: str
    message: NotRequired[str]
    web_query: NotRequired[str]


# final: a part is exactly one of these, which lets `"status" in part` tell them apart for the checker.
@final
class StatusPart(TypedDict):
    status: StatusFields


@final
class TokenPart(TypedDict):
    token: str


StreamPart = StatusPart | TokenPart
Writer = Callable[[StreamPart], None]


def status_part(node: str, *, message: str | None = None, web_query: str | None = None) -> StatusPart:
    fields = StatusFields(node=node)
    if message is not None:
        fields["message"] = message
    if web_query is not None:
        fields["web_query"] = web_query
    return StatusPart(status=fields)


def token_part(text: str) -> TokenPart:
    return TokenPart(token=text)


def part_writer() -> Writer:
    """The running node's writer of stream parts (RuntimeError outside a graph run)."""
    writer: Writer = get_stream_writer()
    return writer
