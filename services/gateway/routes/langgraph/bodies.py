"""Request bodies on `/lg` are JSON whatever their Content-Type, as LangGraph's server reads them.

Agent Chat UI's server-side proxy forwards the browser's body as `text/plain;charset=UTF-8`;
FastAPI would hand such a body to validation as bytes (a 422 on every POST). A route of the
`/lg` routers reads it as JSON instead; `/v1` keeps FastAPI's rules.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

WITH_BODY = frozenset({"POST", "PUT", "PATCH"})


def _declares_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


class JsonBodyRoute(APIRoute):
    """An APIRoute whose request body is parsed as JSON, whatever Content-Type the client declared."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def read_as_json(request: Request) -> Response:
            if request.method in WITH_BODY and not _declares_json(request.headers.get("content-type", "")):
                headers = [(k, v) for k, v in request.scope["headers"] if k != b"content-type"]
                scope = {**request.scope, "headers": [*headers, (b"content-type", b"application/json")]}
                request = Request(scope, request.receive)
            return await handler(request)

        return read_as_json
