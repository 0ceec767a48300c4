"""What "ready" means for a worker: connected to NATS, to Postgres, and consuming its work.

"Consuming" is judged from outside the worker's consumer code, so it holds whatever library
the consumer is built on: the durable consumer exists on the server (it is created when the
worker starts pulling) and the worker's main task is still running; a request-reply worker has
its subscription on the connection.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from shared.db.pool import ping
from shared.runtime.service import Infra

CHECK_TIMEOUT_S = 2.0


@dataclass
class Readiness:
    """The checks of one worker process; `main` is set once its main task is running."""

    infra: Infra
    durables: Sequence[str] = ()
    subjects: Sequence[str] = ()
    main: asyncio.Task | None = field(default=None)
    stop: asyncio.Event | None = field(default=None)

    async def __call__(self) -> list[str]:
        if self.stop is not None and self.stop.is_set():
            return ["draining"]
        missing = []
        if not self.infra.bus.nc.is_connected:
            missing.append("nats")
        elif not await self.consuming():
            missing.append("consuming")
        if self.infra.db is not None and not await self.database():
            missing.append("postgres")
        return missing

    async def database(self) -> bool:
        try:
            async with asyncio.timeout(CHECK_TIMEOUT_S), self.infra.db.pool.connection() as conn:
                await ping(conn)
            return True
        except Exception:
            return False

    async def consuming(self) -> bool:
        if self.main is None or self.main.done():
            return False
        stream = self.infra.bus.subjects.commands_stream
        try:
            async with asyncio.timeout(CHECK_TIMEOUT_S):
                for durable in self.durables:
                    await self.infra.bus.js.consumer_info(stream, durable)
        except Exception:
            return False
        return all(subscribed(self.infra, subject) for subject in self.subjects)


def subscribed(infra: Infra, name: str) -> bool:
    """Whether this connection holds a subscription on the subject `Subjects.<name>` (e.g.
    "rpc_embed"). nats-py keeps subscriptions in the client's private `_subs`; there is no public
    accessor."""
    subject = getattr(infra.bus.subjects, name)
    return any(sub.subject == subject for sub in infra.bus.nc._subs.values())
