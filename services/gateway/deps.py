"""The gateway's process-wide resources, built once in the lifespan and reached via the app."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request

from services.gateway.errors import ApiError
from services.gateway.stream_checks import StreamChecks
from shared.bus.connection import Bus
from shared.config import Settings
from shared.db.pool import Database


@dataclass
class GatewayState:
    settings: Settings
    bus: Bus
    db: Database
    streams: StreamChecks = field(init=False)

    def __post_init__(self) -> None:
        self.streams = StreamChecks(self.db)


async def gateway(request: Request) -> GatewayState:
    return request.app.state.gateway


Gateway = Annotated[GatewayState, Depends(gateway)]
"""The gateway's resources as a route parameter: `gw: Gateway`."""


async def bus_up(request: Request) -> None:
    """Fail fast with 503 instead of queueing a command while NATS is unreachable."""
    if not request.app.state.gateway.bus.nc.is_connected:
        raise ApiError(503, "bus_unavailable", "the message bus is unavailable; try again shortly")
