"""A tiny HTTP/1.1 server for probes and scraping: `/healthz`, `/readyz`, `/metrics`.

Workers are not web services, so pulling in an ASGI server for three GET routes would cost
memory in every replica; asyncio's stream server answers these in a few lines. Each request is
answered and the connection closed, which is all kubelet probes and Prometheus need.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

log = logging.getLogger(__name__)

ReadyCheck = Callable[[], Awaitable[list[str]]]
"""Returns what is not ready (empty list: ready)."""

REASONS = {200: "OK", 404: "Not Found", 405: "Method Not Allowed", 503: "Service Unavailable"}


def response(status: int, body: bytes, content_type: str = "text/plain; charset=utf-8") -> bytes:
    head = (
        f"HTTP/1.1 {status} {REASONS[status]}\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


async def route(method: str, path: str, ready: ReadyCheck) -> bytes:
    if method != "GET":
        return response(405, b"GET only\n")
    path = path.split("?", 1)[0]
    if path == "/healthz":
        return response(200, b"ok\n")
    if path == "/readyz":
        missing = await ready()
        if missing:
            return response(503, ("not ready: " + ", ".join(missing) + "\n").encode())
        return response(200, b"ready\n")
    if path == "/metrics":
        return response(200, generate_latest(), CONTENT_TYPE_LATEST)
    return response(404, b"not found\n")


async def serve_http(host: str, port: int, ready: ReadyCheck) -> asyncio.Server:
    """Listen on host:port; the caller closes the returned server."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = await asyncio.wait_for(reader.readline(), timeout=5)
            while (await asyncio.wait_for(reader.readline(), timeout=5)) not in (b"\r\n", b"\n", b""):
                pass
            parts = request_line.decode("latin-1").split()
            if len(parts) < 2:
                return
            writer.write(await route(parts[0], parts[1], ready))
            await writer.drain()
        except (TimeoutError, ConnectionError):
            return
        finally:
            writer.close()

    return await asyncio.start_server(handle, host, port)
