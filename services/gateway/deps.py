"""The gateway's process-wide resources, built once in the lifespan and reached via the app."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from shared.bus.connection import Bus
from shared.config import Settings
from shared.db.pool import Database


@dataclass
class GatewayState:
    settings: Settings
    bus: Bus
    db: Database


def gateway(request: Request) -> GatewayState:
    return request.app.state.gateway
