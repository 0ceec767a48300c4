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
