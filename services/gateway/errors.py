"""JSON errors `{error: {code, message, details?}}` for every failure, including infrastructure."""

from __future__ import annotations

import logging
from typing import Any

import nats.errors
import psycopg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from psycopg_pool import PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from shared.contracts.api import ErrorBody

log = logging.getLogger(__name__)


def documented_errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses a router can answer, all with the one error body."""
    descriptions = {
        400: "Malformed request body (not parseable)",
        401: "Missing, invalid or expired token",
        403: "Wrong role or unregistered tenant",
        404: "Not found (or another tenant's or user's)",
        409: "Conflict with the thread's state",
        413: "Body or upload too large",
        415: "Unsupported file type",
        422: "Validation error (names the field)",
        429: "Rate limited (see Retry-After)",
        503: "NATS or Postgres unavailable",
    }
    return {status: {"model": ErrorBody, "description": descriptions[status]} for status in statuses}


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.details = status, code, message, details


def not_found(what: str) -> ApiError:
    return ApiError(404, "not_found", f"{what} not found")


def error_response(
    status: int, code: str, message: str, details: Any = None, headers: dict[str, str] | None = None
) -> JSONResponse:
    body: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        body["details"] = details
    return JSONResponse({"error": body}, status_code=status, headers=headers)


def _field(loc: tuple) -> str:
    return ".".join(str(p) for p in loc if p not in ("body", "query", "path", "form"))


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_: Request, exc: ApiError) -> JSONResponse:
        headers = {"Retry-After": str(exc.details["retry_after_s"])} if exc.status == 429 else None
        return error_response(exc.status, exc.code, exc.message, exc.details, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"field": _field(tuple(e["loc"])), "message": e["msg"], "type": e["type"]} for e in exc.errors()]
        first = errors[0] if errors else {"field": "", "message": "invalid request"}
        return error_response(422, "validation_error", f"{first['field']}: {first['message']}", errors)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed"}.get(
            exc.status_code, "http_error"
        )
        return error_response(exc.status_code, code, str(exc.detail), headers=getattr(exc, "headers", None))

    @app.exception_handler(psycopg.DataError)
    async def unstorable_input(_: Request, exc: psycopg.DataError) -> JSONResponse:
        # Input that passed validation but cannot be stored (e.g. NUL in a form field): the client's fault.
        return error_response(422, "validation_error", f"input cannot be stored: {exc}")

    @app.exception_handler(psycopg.OperationalError)
    @app.exception_handler(PoolTimeout)
    async def database_down(_: Request, exc: Exception) -> JSONResponse:
        log.warning("database unavailable: %s", exc)
        return error_response(503, "database_unavailable", "the database is unavailable; try again shortly")

    @app.exception_handler(nats.errors.Error)
    @app.exception_handler(TimeoutError)
    async def bus_down(_: Request, exc: Exception) -> JSONResponse:
        log.warning("message bus unavailable: %s", exc)
        return error_response(503, "bus_unavailable", "the message bus is unavailable; try again shortly")
