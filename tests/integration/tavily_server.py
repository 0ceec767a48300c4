"""A small Tavily-compatible HTTP server (POST /search) for tests of the real `tavily-python` client.

Wire level only: the real client, real HTTP, canned search results. Queries containing "limit"
get the plan-limit status (432); "flaky" fails once with 500 before answering.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.integration.wire import serve

API_KEY = "tvly-test-key"
RESULTS = [
    {
        "title": "EDPB guidance on breach notification",
        "url": "https://edpb.example/breach-notification",
        "content": "Controllers must notify the supervisory authority within 72 hours of becoming aware of a "
        "personal data breach. Notification may be provided in phases when not all information is available yet.",
        "score": 0.91,
    },
    {
        "title": "Unrelated cooking blog",
        "url": "https://cooking.example/soup",
        "content": "Simmer the vegetables slowly for a rich and tasty soup on a cold winter evening.",
        "score": 0.12,
    },
]


def build_app(calls: list[dict]) -> Starlette:
    async def search(request: Request) -> JSONResponse:
        body = await request.json()
        calls.append(body)
        if request.headers.get("authorization") != f"Bearer {API_KEY}":
            return JSONResponse({"detail": {"error": "Unauthorized: missing or invalid API key."}}, status_code=401)
        query = body.get("query", "")
        if "limit" in query:
            return JSONResponse({"detail": {"error": "This request exceeds your plan's set usage limit."}}, 432)
        if "flaky" in query and sum("flaky" in c.get("query", "") for c in calls) == 1:
            return JSONResponse({"detail": {"error": "internal"}}, status_code=500)
        results = RESULTS[: body.get("max_results") or 5]
        return JSONResponse({"query": query, "results": results, "response_time": 0.01, "images": []})

    return Starlette(routes=[Route("/search", search, methods=["POST"])])


@contextmanager
def tavily_server() -> Iterator[tuple[str, list[dict]]]:
    calls: list[dict] = []
    with serve(lambda port: build_app(calls)) as port:
        yield f"http://127.0.0.1:{port}", calls
