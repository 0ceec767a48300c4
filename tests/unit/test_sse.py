"""The gateway's SSE response over the ASGI interface: framing, keep-alives, hang-ups."""

from __future__ import annotations

import asyncio
import contextlib

from services.gateway.sse import KEEP_ALIVE, EventStream, encode


def test_an_event_is_framed_on_single_lines():
    assert encode({"id": "7", "event": "status", "data": '{"a": 1}'}) == (
        b'id: 7\r\nevent: status\r\ndata: {"a": 1}\r\n\r\n'
    )
    # A stray line break cannot end the event early or inject a field.
    assert encode({"event": "x\r\nid: 99", "data": "a\nevent: evil"}) == (
        b"event: x  id: 99\r\ndata: a event: evil\r\n\r\n"
    )


class Client:
    """The ASGI side of one connection: collects what is sent; hangs up when told to."""

    def __init__(self) -> None:
        self.sent: list[dict] = []
        self.gone = asyncio.Event()

    async def receive(self) -> dict:
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict) -> None:
        self.sent.append(message)

    def body(self) -> bytes:
        return b"".join(m.get("body", b"") for m in self.sent[1:])


async def test_items_and_keep_alives_then_the_end_of_the_body():
    async def events():
        yield {"id": "1", "event": "status", "data": "{}"}
        yield None
        yield {"id": "2", "event": "response", "data": "{}"}

    client = Client()
    await EventStream(events(), headers={"X-Run-Id": "r"})(
        {"type": "http", "method": "GET"}, client.receive, client.send
    )
    start = client.sent[0]
    assert start["status"] == 200
    assert (b"x-accel-buffering", b"no") in start["headers"] and (b"x-run-id", b"r") in start["headers"]
    assert not any(name == b"content-length" for name, _ in start["headers"])
    assert client.body() == encode({"id": "1", "event": "status", "data": "{}"}) + KEEP_ALIVE + encode(
        {"id": "2", "event": "response", "data": "{}"}
    )
    assert client.sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}


async def test_a_hang_up_ends_a_waiting_stream_at_once_and_runs_its_cleanup():
    cleaned = asyncio.Event()

    async def events():
        try:
            yield {"event": "status", "data": "{}"}
            await asyncio.sleep(3600)  # a stream with nothing to say for an hour
            yield {"event": "never", "data": "{}"}
        finally:
            cleaned.set()

    client = Client()
    stream = asyncio.create_task(EventStream(events())({"type": "http", "method": "GET"}, client.receive, client.send))
    await asyncio.sleep(0.05)
    client.gone.set()
    await asyncio.wait_for(stream, 2)  # returns normally: the hang-up is not an error
    assert cleaned.is_set() and not stream.cancelled()
    assert b"never" not in client.body()


async def test_a_cancelled_stream_stays_cancelled():
    """Server shutdown cancels the request task; that cancellation is not swallowed as a hang-up."""

    async def events():
        await asyncio.sleep(3600)
        yield None

    client = Client()
    stream = asyncio.create_task(EventStream(events())({"type": "http", "method": "GET"}, client.receive, client.send))
    await asyncio.sleep(0.05)
    stream.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await stream
    assert stream.cancelled()
