"""Prometheus metrics of the gateway: requests by route and status, turns started, SSE streams open."""

from __future__ import annotations

import time

from prometheus_client import Counter, Gauge, Histogram, generate_latest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUESTS = Counter("pp_http_requests_total", "HTTP requests", ["method", "route", "status"])
LATENCY = Histogram("pp_http_request_seconds", "Time to response headers", ["method", "route"])
TURNS = Counter("pp_turns_started_total", "Chat turns and resumes published", ["kind"])
SSE_OPEN = Gauge("pp_sse_streams_open", "Server-sent event streams currently open")


def record_request(method: str, route: str, status: int, started: float) -> None:
    """Count a request and its time to response headers (`started`: its `time.perf_counter()`)."""
    REQUESTS.labels(method, route, str(status)).inc()
    LATENCY.labels(method, route).observe(time.perf_counter() - started)


def render_metrics() -> str:
    return generate_latest().decode()


class MetricsMiddleware:
    """Pure ASGI (not BaseHTTPMiddleware) so streaming responses are not buffered."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        method = scope["method"]

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                record_request(method, getattr(scope.get("route"), "path", "unmatched"), message["status"], started)
            await send(message)

        await self.app(scope, receive, send_wrapper)
