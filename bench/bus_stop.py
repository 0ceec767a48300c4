"""Stopping a request-reply responder while requests flow (`python -m bench.bus --only stop`): nats-py's
`drain` against FastStream's subscriber `stop`, the measurement behind the embedding service answering
through a nats-py subscription (docs/bus-stack.md).

Two responders share a queue group: one stays up the whole time, the other (nats-py or FastStream) is
stopped a second into a steady stream of requests. Each answer takes `WORK_S` (a micro-batch window
and an embedding). A request that gets no answer within `TIMEOUT_S` counts as lost: the caller would
have waited out its timeout instead of being answered by the replica that stays.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import nats
from faststream.nats import NatsBroker
from nats.aio.msg import Msg
from nats.errors import TimeoutError as NatsTimeoutError

SUBJECT = "bench.stop.rpc"
QUEUE = "bench-stop"
WORK_S = 0.2
TIMEOUT_S = 2.0
RATE_PER_S = 100
STOP_AT_S = 1.0
FOR_S = 3.0

Stop = Callable[[], Coroutine[Any, Any, None]]


async def answer_later(msg: Msg) -> None:
    await asyncio.sleep(WORK_S)
    await msg.respond(msg.data)


async def nats_py_responder(url: str) -> Stop:
    """A responder as the embedding service's: a task per request; stopping drains the subscription."""
    nc = await nats.connect(url)
    tasks: set[asyncio.Task[None]] = set()

    async def dispatch(msg: Msg) -> None:
        task = asyncio.create_task(answer_later(msg))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    sub = await nc.subscribe(SUBJECT, queue=QUEUE, cb=dispatch)

    async def stop() -> None:
        await sub.drain()
        await asyncio.gather(*tasks)
        await nc.close()

    return stop


async def faststream_responder(url: str) -> Stop:
    """The same responder as a FastStream subscriber (concurrent workers, graceful stop)."""
    broker = NatsBroker(url, graceful_timeout=10.0)

    @broker.subscriber(SUBJECT, queue=QUEUE, max_workers=64)
    async def respond(body: bytes) -> bytes:
        await asyncio.sleep(WORK_S)
        return body

    await broker.start()

    async def stop() -> None:
        await broker.stop()

    return stop


async def lost_while_stopping(url: str, leaver: Callable[[str], Awaitable[Stop]]) -> dict:
    """Requests at `RATE_PER_S` for `FOR_S`; the leaving responder is stopped at `STOP_AT_S`."""
    stayer = await nats_py_responder(url)
    stop_leaver = await leaver(url)
    caller = await nats.connect(url)

    async def ask(i: int) -> bool:
        try:
            await caller.request(SUBJECT, str(i).encode(), timeout=TIMEOUT_S)
            return True
        except NatsTimeoutError:
            return False

    started = time.perf_counter()
    asks: list[asyncio.Task[bool]] = []
    stopping: asyncio.Task[None] | None = None
    for i in range(int(RATE_PER_S * FOR_S)):
        await asyncio.sleep(max(0.0, started + i / RATE_PER_S - time.perf_counter()))
        if stopping is None and time.perf_counter() - started >= STOP_AT_S:
            stopping = asyncio.create_task(stop_leaver())
        asks.append(asyncio.create_task(ask(i)))
    answered = await asyncio.gather(*asks)
    if stopping is not None:
        await stopping
    await stayer()
    await caller.close()
    return {"requests": len(answered), "lost": answered.count(False)}


async def stop_comparison(url: str) -> dict:
    return {
        "nats_py_drain": await lost_while_stopping(url, nats_py_responder),
        "faststream_stop": await lost_while_stopping(url, faststream_responder),
        "work_ms": WORK_S * 1000,
        "rate_per_s": RATE_PER_S,
    }
