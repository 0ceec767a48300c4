"""A reader cancelled as its message arrives ends. On Python 3.11 `asyncio.wait_for` (in nats-py's
`next_msg`) hands back such a message and drops the cancellation; the LangGraph WebSocket's pump read
on, and the subscription that replaced it waited for it until the socket closed."""

from __future__ import annotations

import asyncio
import sys

import pytest

from services.gateway.relay import next_message
from services.gateway.routes.langgraph.protocol_socket import _stopped


class Arrivals:
    """A feed read the way nats-py reads a subscription: `asyncio.wait_for` on the next message."""

    def __init__(self) -> None:
        self.futures: list[asyncio.Future[str]] = []

    async def next_msg(self, timeout: float) -> str:
        self.futures.append(asyncio.get_running_loop().create_future())
        return await asyncio.wait_for(self.futures[-1], timeout)

    async def unsubscribe(self) -> None:
        return None


async def _arriving_as_cancelled(reader: asyncio.Task[None], feed: Arrivals) -> None:
    await asyncio.sleep(0)
    feed.futures[-1].set_result("event")  # lands in the same step as the cancellation
    reader.cancel()
    await asyncio.sleep(0.05)


async def test_a_bus_read_cancelled_as_its_message_arrives_raises_the_cancellation():
    feed, read = Arrivals(), []

    async def reader() -> None:
        while True:
            read.append(await next_message(feed, 10))  # type: ignore[arg-type]

    task = asyncio.create_task(reader())
    await _arriving_as_cancelled(task, feed)
    assert task.cancelled() and read == []


async def test_a_socket_pump_that_reads_on_after_its_cancellation_is_cancelled_until_it_ends():
    feed = Arrivals()

    async def pump() -> None:
        while True:
            await feed.next_msg(10)

    task = asyncio.create_task(pump())
    await _arriving_as_cancelled(task, feed)
    if not task.done():  # the cancellation was dropped (Python 3.11): the pump reads on
        assert len(feed.futures) == 2
    async with asyncio.timeout(5):
        await _stopped(task)
    assert task.cancelled()


def test_the_feed_double_drops_the_cancellation_as_nats_py_does_on_this_python():
    """The premise of the two tests above, where the Python in use has the flaw."""

    async def flow() -> bool:
        feed = Arrivals()
        task = asyncio.create_task(feed.next_msg(10))
        await asyncio.sleep(0)
        feed.futures[-1].set_result("event")
        task.cancel()
        await asyncio.sleep(0)
        return not task.cancelled()

    if sys.version_info >= (3, 12):
        pytest.skip("asyncio.wait_for keeps a cancellation from Python 3.12 on")
    assert asyncio.run(flow())
