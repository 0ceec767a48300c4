"""Request authentication: Bearer header, or `?token=` for EventSource clients."""

from __future__ import annotations

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from services.gateway.errors import ApiError
from shared.auth.tokens import InvalidToken, Principal, verify_token

bearer = HTTPBearer(auto_error=False, description="JWT (HS256) minted by `policypal token`")


def principal(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> Principal:
    token = credentials.credentials if credentials else request.query_params.get("token")
    if not token:
        raise ApiError(401, "unauthorized", "missing bearer token")
    try:
        return verify_token(request.app.state.settings.jwt_secret(), token)
    except InvalidToken as exc:
        raise ApiError(401, "unauthorized", str(exc)) from exc


def user(p: Principal = Depends(principal)) -> Principal:
    """A workspace user; other roles may not use the document and chat API."""
    if p.role not in ("user", "admin"):
        raise ApiError(403, "forbidden", f"role {p.role!r} cannot use this endpoint")
    return p


def customer(p: Principal = Depends(principal)) -> Principal:
    """A widget session: role customer, bound to one ticket."""
    if p.role != "customer":
        raise ApiError(403, "forbidden", f"role {p.role!r} cannot use the widget API")
    if p.ticket_id is None:
        raise ApiError(401, "unauthorized", "widget session token without a ticket")
    return p


def agent(p: Principal = Depends(principal)) -> Principal:
    """A human support agent (or a tenant admin) working the tenant's ticket queue."""
    if p.role not in ("agent", "admin"):
        raise ApiError(403, "forbidden", f"role {p.role!r} cannot work tickets")
    return p


def admin(p: Principal = Depends(principal)) -> Principal:
    """A tenant admin: manages its own tenant only."""
    if p.role != "admin":
        raise ApiError(403, "forbidden", "only an admin can manage tenants")
    return p


def operator(p: Principal = Depends(principal)) -> Principal:
    """The platform operator: the only role that may create tenants (a tenant admin may not)."""
    if p.role != "operator":
        raise ApiError(403, "forbidden", "only a platform operator can create tenants")
    return p
