"""Publish and request-reply, raw nats-py vs FastStream's broker, on one NATS server
(`python -m bench.bus --only publish`): the measurement behind keeping the raw client for the
outbox's publishes, the RPCs and the stop broadcast (docs/bus-stack.md).

Both sides send the same bytes with the same headers (`Nats-Msg-Id`, `traceparent`) to the same
stream subject, and the same request to the same core-NATS responder, in alternating blocks so
machine noise hits both alike.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import nats
from faststream.nats import NatsBroker
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import StreamConfig

STREAM = "BENCH_PUBLISH"
SUBJECT = "bench.publish.events"
RPC = "bench.publish.rpc"
PAYLOAD = b'{"type":"token","text":"' + b"x" * 200 + b'"}'
TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


@dataclass
class PublishRig:
    nc: Client
    js: JetStreamContext
    broker: NatsBroker

    @classmethod
    async def open(cls, url: str) -> PublishRig:
        nc = await nats.connect(url)
        js = nc.jetstream()
        await js.add_stream(StreamConfig(name=STREAM, subjects=[SUBJECT]))

        async def echo(msg: Msg) -> None:
            await msg.respond(msg.data)

        await nc.subscribe(RPC, cb=echo)
        broker = NatsBroker(url)
        await broker.start()
        return cls(nc=nc, js=js, broker=broker)

    async def close(self) -> None:
        await self.broker.stop()
        await self.nc.close()

    @staticmethod
    def headers() -> dict[str, str]:
        return {"Nats-Msg-Id": str(uuid.uuid4()), "traceparent": TRACEPARENT}

    async def raw_publish(self, n: int) -> list[float]:
        return await timed(n, lambda: self.js.publish(SUBJECT, PAYLOAD, headers=self.headers()))

    async def faststream_publish(self, n: int) -> list[float]:
        return await timed(n, lambda: self.broker.publish(PAYLOAD, SUBJECT, headers=self.headers(), stream=STREAM))

    async def raw_request(self, n: int) -> list[float]:
        return await timed(n, lambda: self.nc.request(RPC, PAYLOAD, timeout=5, headers=self.headers()))

    async def faststream_request(self, n: int) -> list[float]:
        return await timed(n, lambda: self.broker.request(PAYLOAD, RPC, headers=self.headers(), timeout=5))


async def timed(n: int, send: Callable[[], Awaitable[object]]) -> list[float]:
    """Seconds each of `n` sends took, one after another."""
    times = []
    for _ in range(n):
        started = time.perf_counter()
        await send()
        times.append(time.perf_counter() - started)
    return times
