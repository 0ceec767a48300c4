"""Request authentication: Bearer header, or `?token=` for EventSource clients."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from services.gateway.access import apply_access, workspace_role
from services.gateway.deps import Gateway, GatewayState
from services.gateway.errors import ApiError
from services.gateway.ratelimit import charge
from shared.auth.tokens import Customer, InvalidToken, Principal, verify_token
from shared.db import accounts
from shared.db.pool import tenant_tx

bearer = HTTPBearer(auto_error=False, description="JWT (HS256) minted by `policypal token`")


def verified(gw: GatewayState, request: Request, credentials: HTTPAuthorizationCredentials | None) -> Principal:
    """The token's principal, checked against the key only (no database)."""
    token = credentials.credentials if credentials else request.query_params.get("token")
    if not token:
        raise ApiError(401, "unauthorized", "missing bearer token")
    try:
        return verify_token(gw.settings.jwt_secret(), token)
    except InvalidToken as exc:
        raise ApiError(401, "unauthorized", str(exc)) from exc


async def token_principal(
    request: Request, gw: Gateway, credentials: HTTPAuthorizationCredentials | None = Depends(bearer)
) -> Principal:
    return verified(gw, request, credentials)


TokenPrincipal = Annotated[Principal, Depends(token_principal)]
"""A valid token whose account has not been looked up yet: the thread stream checks it batched."""


async def principal(gw: Gateway, p: TokenPrincipal) -> Principal:
    return await current_access(gw, p)


AnyPrincipal = Annotated[Principal, Depends(principal)]
"""Any authenticated caller, whatever its role."""


async def rate_limited(gw: Gateway, p: AnyPrincipal) -> None:
    """The caller's tenant and user rate limits (services/gateway/ratelimit.py), as a dependency."""
    charge(gw.limits, p)


async def current_access(gw: GatewayState, p: Principal) -> Principal:
    """The account as it is now, not as it was when the token was minted: a disabled user loses
    access at the next request and a role change applies at once (one primary-key lookup).
    Tokens of subjects without an account (CLI-minted, widget customers) pass unchanged."""
    if p.role == "customer":
        return p
    async with tenant_tx(gw.db, p.tenant_id) as conn:
        row = await accounts.access(conn, p.user_id)
    return apply_access(p, row)


# The role checks below are `async def` although they never wait: FastAPI runs a plain `def`
# dependency in its thread pool, a thread hop on every request for a comparison.
async def user(p: AnyPrincipal) -> Principal:
    return workspace_role(p)


async def customer(p: AnyPrincipal) -> Customer:
    """A widget session: role customer, bound to one ticket."""
    if p.role != "customer":
        raise ApiError(403, "forbidden", f"role {p.role!r} cannot use the widget API")
    if p.ticket_id is None:
        raise ApiError(401, "unauthorized", "widget session token without a ticket")
    return Customer(**p.model_dump())


async def agent(p: AnyPrincipal) -> Principal:
    """A human support agent (or a tenant admin) working the tenant's ticket queue."""
    if p.role not in ("agent", "admin"):
        raise ApiError(403, "forbidden", f"role {p.role!r} cannot work tickets")
    return p


async def admin(p: AnyPrincipal) -> Principal:
    """A tenant admin: manages its own tenant only."""
    if p.role != "admin":
        raise ApiError(403, "forbidden", "only an admin can manage tenants")
    return p


async def operator(p: AnyPrincipal) -> Principal:
    """The platform operator: the only role that may create tenants (a tenant admin may not)."""
    if p.role != "operator":
        raise ApiError(403, "forbidden", "only a platform operator can create tenants")
    return p


# The role checks as route parameter types (`p: WorkspaceUser`), declared once for every router.
WorkspaceUser = Annotated[Principal, Depends(user)]
WidgetCustomer = Annotated[Customer, Depends(customer)]
SupportAgent = Annotated[Principal, Depends(agent)]
TenantAdmin = Annotated[Principal, Depends(admin)]
PlatformOperator = Annotated[Principal, Depends(operator)]
