"""The gateway: authenticates, validates, publishes commands and relays events. It never runs the agent."""

from __future__ import annotations

import gc
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import uvicorn
from fastapi import FastAPI
from fastapi.middleware import Middleware
from fastapi.middleware.cors import CORSMiddleware
from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

from services.gateway.deps import GatewayState
from services.gateway.errors import install_error_handlers
from services.gateway.limits import BodySizeLimit
from services.gateway.metrics import MetricsMiddleware
from services.gateway.routes import (
    actions,
    admin,
    asyncapi,
    auth,
    chat,
    conversations,
    documents,
    health,
    langgraph,
    me,
    sets,
    sso,
    team,
    tickets,
    widget,
)
from services.gateway.thread_streams import ThreadStreams
from services.gateway.ui import install_ui
from services.gateway.widget_cors import WidgetCORS
from shared.bus.connection import connect_bus
from shared.config import Settings, get_settings
from shared.db.pool import open_database
from shared.telemetry.logging import configure_logging
from shared.telemetry.otel import setup_tracing

log = logging.getLogger(__name__)
# Where a run's message may carry attached files as base64 (services/gateway/attachments.py).
ATTACHMENT_PATHS = re.compile(r"^/lg(/threads/[^/]+)?/runs(/stream|/wait)?$")


def body_limits(settings: Settings) -> dict[str, Any]:
    """BodySizeLimit's arguments: uploads exempt, run bodies room for one upload-sized file in base64."""
    return {
        "max_bytes": settings.max_request_bytes,
        "exempt_paths": ("/v1/documents",),
        "attachment_paths": ATTACHMENT_PATHS,
        "attachment_bytes": settings.max_upload_bytes * 4 // 3 + settings.max_request_bytes,
    }


@asynccontextmanager
async def lifespan(app: FastAPI, settings: Settings) -> AsyncIterator[None]:
    """Builds the process's one composition root (GatewayState) and closes it at shutdown."""
    settings.jwt_secret()  # fail at startup, not on the first request, when no key is configured
    bus = await connect_bus(settings, name="gateway")
    db = await open_database(settings)
    gw = await GatewayState.open(settings, bus, db)
    app.state.gateway = gw
    # Everything built so far lives as long as the process: out of the cyclic collector's sight, a
    # full collection no longer walks the imported modules and the app on every pass, which with
    # thousands of open streams held relayed events back by a hundred milliseconds and more.
    gc.freeze()
    log.info("gateway ready on http://%s:%s", settings.host, settings.port)
    try:
        yield
    finally:
        await gw.relay.stop()
        await bus.close()
        await db.close()


def middleware(settings: Settings) -> list[Middleware]:
    """The gateway's middleware, outermost first: the thread-stream fast path sees a request before
    anything else (services/gateway/thread_streams.py); CORS answers preflights before the widget's
    own CORS and the metrics; the body limit is innermost, next to the routes."""
    stack = [Middleware(ThreadStreams)]
    if settings.cors_origins:
        stack.append(
            Middleware(
                CORSMiddleware,
                allow_origins=settings.cors_origins,
                allow_methods=["*"],
                # X-Api-Key: LangGraph clients send the token there; Location headers: they reconnect with them.
                allow_headers=["Authorization", "Content-Type", "Last-Event-ID", "X-Api-Key"],
                expose_headers=["X-Thread-Id", "X-Run-Id", "Content-Location", "Location"],
            )
        )
    stack += [
        Middleware(WidgetCORS),
        Middleware(MetricsMiddleware),
        Middleware(BodySizeLimit, **body_limits(settings)),
    ]
    return stack


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    app = FastAPI(
        title="PolicyPal",
        version="0.1.0",
        description="Document-grounded agent platform. Errors are `{error: {code, message, details?}}`.",
        lifespan=partial(lifespan, settings=settings),
        middleware=middleware(settings),
    )
    install_error_handlers(app)
    routers = (
        health,
        documents,
        sets,
        chat,
        conversations,
        widget,
        tickets,
        admin,
        langgraph,
        auth,
        me,
        team,
        sso,
        asyncapi,
        actions,
    )
    for router in (module.router for module in routers):
        app.include_router(router)
    install_ui(app)
    if provider := setup_tracing("gateway"):
        FastAPIInstrumentor.instrument_app(app, tracer_provider=provider, excluded_urls="healthz,readyz,metrics")
    return app


def main() -> None:
    settings = get_settings()
    configure_logging("gateway", settings.log_level)
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_config=None,
        timeout_graceful_shutdown=5,
        loop="uvloop",
        http="httptools",
    )
