"""The gateway's composition root: every process-wide resource, built once in the lifespan and
reached through typed dependencies (`gw: Gateway`), never as loose attributes of the app."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, FastAPI, Request
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from services.gateway.errors import ApiError
from services.gateway.ratelimit import Limits, RateLimiter
from services.gateway.relay import Relay
from services.gateway.signin_throttle import SignInThrottle
from services.gateway.sso import SsoClients
from services.gateway.stream_checks import StreamChecks
from shared.bus.connection import Bus
from shared.config import Settings
from shared.db.pool import Database
from shared.graph.topology import AgentGraph, compile_graph


def limits_of(settings: Settings) -> Limits:
    return Limits(
        tenant=RateLimiter(settings.rate_limit_tenant_per_min),
        user=RateLimiter(settings.rate_limit_user_per_min),
        tenant_creation=RateLimiter(settings.rate_limit_tenant_creation_per_min),
        widget_init=RateLimiter(settings.rate_limit_widget_init_per_min),
    )


def throttle_of(settings: Settings) -> SignInThrottle:
    return SignInThrottle(settings.signin_free_failures, settings.signin_base_delay_s, settings.signin_max_delay_s)


@dataclass
class GatewayState:
    settings: Settings
    bus: Bus
    db: Database
    relay: Relay
    # Read-only view of checkpoints (pending interrupts, history); every node is a guard here.
    graph_view: AgentGraph
    # The same checkpoints, for deleting and copying a thread's.
    checkpoints: AsyncPostgresSaver
    streams: StreamChecks = field(init=False)
    limits: Limits = field(init=False)
    signin_throttle: SignInThrottle = field(init=False)
    sso: SsoClients = field(init=False)

    def __post_init__(self) -> None:
        self.streams = StreamChecks(self.db)
        self.limits = limits_of(self.settings)
        self.signin_throttle = throttle_of(self.settings)
        self.sso = SsoClients(self.settings)

    @classmethod
    async def open(cls, settings: Settings, bus: Bus, db: Database) -> GatewayState:
        relay = await Relay.start(bus)
        checkpoints = AsyncPostgresSaver(db.checkpoint_pool)
        graph_view = compile_graph({}, checkpoints)
        return cls(settings=settings, bus=bus, db=db, relay=relay, graph_view=graph_view, checkpoints=checkpoints)


def gateway_of(app: FastAPI) -> GatewayState:
    """The app's state, set by the lifespan (services/gateway/app.py)."""
    state: GatewayState = app.state.gateway
    return state


async def gateway(request: Request) -> GatewayState:
    return gateway_of(request.app)


Gateway = Annotated[GatewayState, Depends(gateway)]
"""The gateway's resources as a route parameter: `gw: Gateway`."""


async def bus_up(gw: Gateway) -> None:
    """Fail fast with 503 instead of queueing a command while NATS is unreachable."""
    if not gw.bus.nc.is_connected:
        raise ApiError(503, "bus_unavailable", "the message bus is unavailable; try again shortly")
