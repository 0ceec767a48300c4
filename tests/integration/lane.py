"""A private command lane on the real commands stream, for tests of the delivery rules."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

from faststream.nats.annotations import NatsMessage

from shared.bus.broker import serve_routers
from shared.bus.connection import connect_bus
from shared.bus.consumer import Delivery, command_subscriber, commands_router
from shared.bus.delivery import BadInput
from shared.bus.publish import publish
from shared.config import Settings
from shared.contracts.common import Envelope
from shared.db.pool import Database
from shared.runtime.service import Infra

Handler = Callable[[Envelope, Delivery], Awaitable[None]]


class Lane:
    """A private command subject and durable on PP_COMMANDS, and what reached its handler."""

    def __init__(self, infra: Infra, settings: Settings) -> None:
        self.infra, self.settings = infra, settings
        self.name = f"t{uuid.uuid4().hex[:10]}"
        self.subject = infra.bus.subjects.cmd_action(self.name)
        self.kind = f"action.{self.name}"
        self.dead: list[tuple[bytes, str]] = []
        self.refused: list[tuple[bytes, BadInput]] = []

    async def on_dead_letter(self, raw: bytes, reason: str) -> None:
        self.dead.append((raw, reason))

    async def on_bad_input(self, raw: bytes, exc: BadInput) -> None:
        self.refused.append((raw, exc))

    def router(self, handler: Handler, concurrency: int = 2, database: Database | None = None):
        router = commands_router(
            self.infra.bus,
            self.settings,
            kind=self.kind,
            on_dead_letter=self.on_dead_letter,
            on_bad_input=self.on_bad_input,
            database=database,
        )

        @command_subscriber(
            router,
            self.infra.bus,
            self.settings,
            subject=self.subject,
            durable=self.name,
            model=Envelope,
            description="test lane",
            concurrency=concurrency,
        )
        async def on_command(cmd: Envelope, msg: NatsMessage) -> None:
            await handler(cmd, Delivery.of(msg, self.settings.max_deliver))

        return router

    async def send(self, n: int = 1) -> list[uuid.UUID]:
        ids = [uuid.uuid4() for _ in range(n)]
        for run_id in ids:
            await publish(self.infra.bus, self.subject, Envelope(run_id=run_id, tenant_id=uuid.uuid4(), user_id="u"))
        return ids

    async def consumer_state(self) -> tuple[int, int]:
        info = await self.infra.bus.js.consumer_info(self.infra.bus.subjects.commands_stream, self.name)
        return info.num_pending, info.num_ack_pending


async def until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.05)


async def serving(settings: Settings, *routers) -> tuple[asyncio.Event, asyncio.Task[None]]:
    """Serve the routers as a replica would: on a connection of their own, drained when `stop` is set."""
    stop = asyncio.Event()
    bus = await connect_bus(settings, name="test", ensure=False)

    async def serve() -> None:
        try:
            await serve_routers(bus, stop, *routers)
        finally:
            await bus.close()

    task = asyncio.create_task(serve())
    await asyncio.sleep(0.5)
    return stop, task
