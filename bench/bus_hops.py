"""The two consumers `bench/bus.py` compares hop by hop, on one NATS server and one stream.

Both validate the payload against its contract, reply, then ack: the hand-written nats-py fetch
loop the bus used before, and the FastStream subscriber (`command_subscriber`) it uses now.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from dataclasses import dataclass, field

from faststream.nats import NatsBroker
from faststream.nats.annotations import NatsMessage
from nats.aio.msg import Msg
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from shared.bus.connection import Bus, connect_bus, make_broker
from shared.bus.consumer import command_subscriber, commands_router
from shared.config import Settings
from shared.contracts.common import Envelope

REPLIES = "bench.reply"


@dataclass
class HopRig:
    settings: Settings
    bus: Bus
    broker: NatsBroker
    raw_task: asyncio.Task[None]
    waiting: dict[str, asyncio.Future[float]] = field(default_factory=dict)

    @classmethod
    async def open(cls, url: str) -> HopRig:
        settings = Settings(nats_url=url, subject_prefix="bench", database_url=None)
        bus = await connect_bus(settings, name="bench-bus")
        router = commands_router(bus, settings, kind="bench")

        @command_subscriber(
            router,
            bus,
            settings,
            subject=bus.subjects.cmd_action("fs"),
            durable="fs",
            model=Envelope,
            description="bench",
            concurrency=1,
        )
        async def on_command(cmd: Envelope, msg: NatsMessage) -> None:
            await bus.nc.publish(f"{REPLIES}.{cmd.run_id}", b"")

        # The consumer as a worker replica: a broker (connection) of its own.
        broker = make_broker(settings, "bench-faststream")
        broker.include_router(router)
        await broker.start()
        rig = cls(settings, bus, broker, raw_task=asyncio.create_task(asyncio.sleep(0)))
        await bus.nc.subscribe(f"{REPLIES}.*", cb=rig._on_reply)
        rig.raw_task = asyncio.create_task(rig._raw_loop())
        await asyncio.sleep(0.5)
        return rig

    async def _on_reply(self, msg: Msg) -> None:
        future = self.waiting.pop(msg.subject.rsplit(".", 1)[1], None)
        if future is not None and not future.done():
            future.set_result(time.perf_counter())

    async def _raw_loop(self) -> None:
        subject = self.bus.subjects.cmd_action("raw")
        config = ConsumerConfig(
            durable_name="raw",
            filter_subject=subject,
            ack_policy=AckPolicy.EXPLICIT,
            deliver_policy=DeliverPolicy.ALL,
            ack_wait=self.settings.ack_wait_s,
            max_deliver=5,
        )
        sub = await self.bus.js.pull_subscribe(
            subject, durable="raw", stream=self.bus.subjects.commands_stream, config=config
        )
        while True:
            try:
                msgs = await sub.fetch(1, timeout=1.0)
            except (TimeoutError, NatsTimeoutError):
                continue
            for msg in msgs:
                cmd = Envelope.model_validate_json(msg.data)
                await self.bus.nc.publish(f"{REPLIES}.{cmd.run_id}", b"")
                await msg.ack()

    async def _block(self, subject: str, n: int) -> list[float]:
        hops = []
        for _ in range(n):
            cmd = Envelope(run_id=uuid.uuid4(), tenant_id=uuid.uuid4(), user_id="bench")
            future = asyncio.get_running_loop().create_future()
            self.waiting[str(cmd.run_id)] = future
            started = time.perf_counter()
            await self.bus.js.publish(subject, cmd.model_dump_json().encode())
            hops.append(await asyncio.wait_for(future, 10) - started)
        return hops

    async def raw_block(self, n: int) -> list[float]:
        return await self._block(self.bus.subjects.cmd_action("raw"), n)

    async def faststream_block(self, n: int) -> list[float]:
        return await self._block(self.bus.subjects.cmd_action("fs"), n)

    async def close(self) -> None:
        self.raw_task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.raw_task
        await self.broker.stop()
        await self.bus.close()
