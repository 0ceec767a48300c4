"""Liveness, readiness (NATS + Postgres reachable) and metrics."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from fastapi.responses import JSONResponse, PlainTextResponse

from services.gateway.deps import Gateway
from services.gateway.metrics import render_metrics
from shared.db.pool import ping

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(gw: Gateway) -> JSONResponse:
    checks = {"nats": gw.bus.nc.is_connected, "postgres": False}
    try:
        async with asyncio.timeout(2.0), gw.db.connection() as conn:
            await ping(conn)
        checks["postgres"] = True
    except Exception:
        checks["postgres"] = False
    ready = all(checks.values())
    return JSONResponse(
        {"status": "ready" if ready else "unavailable", "checks": checks}, status_code=200 if ready else 503
    )


@router.get("/metrics", response_class=PlainTextResponse)
async def metrics() -> str:
    return render_metrics()
