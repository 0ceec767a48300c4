"""Who calls `/lg`: the same JWTs as `/v1`, as `Authorization: Bearer` or as `X-Api-Key` (the header
the LangGraph SDKs and Agent Chat UI send their API key in)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials

from services.gateway.access import workspace_role
from services.gateway.auth import bearer, current_access, verified
from services.gateway.deps import Gateway
from services.gateway.ratelimit import charge
from shared.auth.tokens import Principal

api_key = APIKeyHeader(name="X-Api-Key", auto_error=False, description="The same JWT, as LangGraph clients send it")


async def lg_user(
    request: Request,
    gw: Gateway,
    credentials: HTTPAuthorizationCredentials | None = Depends(bearer),
    key: str | None = Depends(api_key),
) -> Principal:
    """A workspace user, by bearer token or API key header (the bearer wins when both are sent)."""
    if credentials is None and key:
        credentials = HTTPAuthorizationCredentials(scheme="Bearer", credentials=key)
    return workspace_role(await current_access(gw, verified(gw, request, credentials)))


LgUser = Annotated[Principal, Depends(lg_user)]
"""The `/lg` caller as a route parameter: `p: LgUser`."""


async def lg_rate_limited(gw: Gateway, p: LgUser) -> None:
    """The chat rate limits of `/v1`, for callers that sign in with `X-Api-Key` too."""
    charge(gw.limits, p)
