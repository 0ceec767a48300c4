"""The gateway's SSE response: one task per open stream, plus one that waits for the hang-up.

sse-starlette's `EventSourceResponse` (still behind `/lg`, whose LangGraph-style heartbeats it
formats) runs an anyio task group of four tasks per stream: the body, the ping timer, the
disconnect listener and the shutdown listener. With thousands of open streams those
tasks, their cancel scopes and frames were most of the gateway's memory and setup CPU per stream
(docs/architecture.md §10). Here the body iterator yields `None` when it has been idle for the
keep-alive interval (it already waits with a timeout), so the keep-alive needs no timer task; the
hang-up watcher is the only extra task, and it cancels the stream's own task, which runs the body
iterator's cleanup (detaching its feed) at once rather than at the next write.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Mapping

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

KEEP_ALIVE = b": keep-alive\r\n\r\n"
# No caching, and no proxy buffering (nginx holds a response back without X-Accel-Buffering: no).
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def encode(item: Mapping[str, str]) -> bytes:
    """`id`, `event` and `data` lines of one event; data is JSON (one line, newlines escaped)."""
    lines = [f"{field}: {_one_line(item[field])}" for field in ("id", "event") if field in item]
    lines.append(f"data: {_one_line(item['data'])}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _one_line(value: str) -> str:
    return value.replace("\r", " ").replace("\n", " ")


class EventStream(Response):
    """`text/event-stream` from an async iterator of SSE items (`None`: idle, send a keep-alive)."""

    def __init__(
        self,
        events: AsyncGenerator[Mapping[str, str] | None, None],
        headers: Mapping[str, str] | None = None,
        status_code: int = 200,
    ) -> None:
        # Not Response.__init__: a response without a body would be sent with Content-Length: 0.
        # The media type is set here, not as a class attribute: FastAPI would document every error
        # response of the route (JSON) as text/event-stream.
        self.media_type = "text/event-stream"
        self.status_code = status_code
        self.background = None
        self.events = events
        self.init_headers({**SSE_HEADERS, **(headers or {})})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        if scope.get("method") == "HEAD":
            await self.events.aclose()
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        stream_task = asyncio.current_task()
        if stream_task is None:  # ASGI servers call every app from a task
            raise RuntimeError("an event stream is sent from outside any task")
        streaming = True
        watcher = asyncio.ensure_future(_hang_up(receive))
        watcher.add_done_callback(lambda w: streaming and not w.cancelled() and stream_task.cancel())
        try:
            await self._stream(send)
        except asyncio.CancelledError:
            if not watcher.done() or watcher.cancelled():
                raise  # cancelled from outside (server shutdown), not by the hang-up
            stream_task.uncancel()
        finally:
            streaming = False
            watcher.cancel()
            await self.events.aclose()

    async def _stream(self, send: Send) -> None:
        async for item in self.events:
            body = KEEP_ALIVE if item is None else encode(item)
            await send({"type": "http.response.body", "body": body, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _hang_up(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
