"""Sign-up, sign-in, refresh and sign-out with email and password (docs/architecture.md §3).

Failures answer the same `invalid_credentials` whether or not the email exists, after the same
Argon2 work (a dummy hash for unknown addresses), and feed the brute-force throttle.
"""

from __future__ import annotations

import math
import uuid
from typing import Any

import psycopg
from fastapi import APIRouter, Request

from services.gateway.deps import Gateway, GatewayState
from services.gateway.errors import ApiError, documented_errors
from services.gateway.sessions import issue_session
from shared.auth.opaque import MalformedToken, digest, tenant_of
from shared.auth.passwords import hash_password, verify_password
from shared.contracts.accounts import AuthConfig, Credentials, InviteAccept, RefreshRequest, Session, SignUp, SsoOption
from shared.db import accounts, audit, invites, sessions, tenants
from shared.db.pool import tenant_tx

router = APIRouter(
    prefix="/v1/auth", tags=["auth"], responses=documented_errors(400, 401, 403, 404, 409, 413, 422, 429, 503)
)

INVALID = ApiError(401, "invalid_credentials", "email or password is incorrect")


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


@router.get("/config", response_model=AuthConfig)
async def auth_config(request: Request, gw: Gateway) -> AuthConfig:
    """What the sign-in page shows; public."""
    sso = [
        SsoOption(tenant_id=uuid.UUID(tenant), name=provider.name, start_url=f"/v1/auth/sso/{tenant}/start")
        for tenant, provider in gw.settings.oidc_providers.items()
    ]
    return AuthConfig(signup_open=bool(gw.settings.signup_tenant_id), sso=sso)


@router.post("/signup", status_code=201, response_model=Session)
async def sign_up(body: SignUp, gw: Gateway) -> Session:
    """Open sign-up into the configured tenant (PP_SIGNUP_TENANT_ID), as a `user`."""
    if not gw.settings.signup_tenant_id:
        raise ApiError(403, "signup_closed", "sign-up is closed here; ask your tenant admin for an invite")
    tenant_id = uuid.UUID(gw.settings.signup_tenant_id)
    password_hash = await hash_password(body.password)
    try:
        async with tenant_tx(gw.db, tenant_id) as conn:
            if not await tenants.is_registered(conn, tenant_id):
                raise ApiError(403, "signup_closed", "the sign-up tenant does not exist on this server")
            account = await accounts.create_account(
                conn,
                tenant_id=tenant_id,
                email=body.email,
                password_hash=password_hash,
                role="user",
                display_name=body.display_name,
            )
            await audit.record(conn, tenant_id, account["user_id"], "auth.sign_up", account["user_id"])
            return await issue_session(conn, gw.settings, tenant_id, account)
    except psycopg.errors.UniqueViolation as exc:
        raise ApiError(409, "email_taken", "an account with this email already exists; sign in instead") from exc


@router.post("/signin", response_model=Session)
async def sign_in(body: Credentials, request: Request, gw: Gateway) -> Session:
    throttle = gw.signin_throttle
    address = client_address(request)
    keys = (f"account:{body.email}", f"address:{address}")
    if (wait := throttle.wait(*keys)) > 0:
        seconds = math.ceil(wait)
        raise ApiError(
            429, "signin_throttled", f"too many failed sign-ins; try again in {seconds} s", {"retry_after_s": seconds}
        )
    found = await find_account(gw, body.email)
    # Verified even without an account (against no hash), so an unknown address takes as long.
    verified = await verify_password(body.password, found[1]["password_hash"] if found else None)
    if found is None or not verified:
        throttle.failed(*keys)
        if found is not None:
            await audit.record(
                gw.db,
                found[0],
                "anonymous",
                "auth.sign_in_failed",
                found[1]["user_id"],
                {"address": address, "reason": "wrong_password"},
            )
        raise INVALID
    tenant_id, account = found
    throttle.succeeded(keys[0])
    if account["disabled"]:
        await audit.record(
            gw.db,
            tenant_id,
            account["user_id"],
            "auth.sign_in_failed",
            account["user_id"],
            {"address": address, "reason": "disabled"},
        )
        raise ApiError(403, "account_disabled", "this account is disabled; ask your tenant admin")
    async with tenant_tx(gw.db, tenant_id) as conn:
        await audit.record(
            conn, tenant_id, account["user_id"], "auth.sign_in", account["user_id"], {"address": address}
        )
        return await issue_session(conn, gw.settings, tenant_id, account)


async def find_account(gw: GatewayState, email: str) -> tuple[uuid.UUID, dict[str, Any]] | None:
    """The address's tenant (from the directory), then its account inside that tenant's RLS scope."""
    async with gw.db.pool.connection() as conn:
        tenant_id = await accounts.tenant_of_email(conn, email)
    if tenant_id is None:
        return None
    async with tenant_tx(gw.db, tenant_id) as conn:
        account = await accounts.get_by_email(conn, email)
    return (tenant_id, account) if account is not None else None


def _tenant_of(token: str) -> uuid.UUID:
    try:
        return tenant_of(token)
    except MalformedToken as exc:
        raise ApiError(401, "invalid_refresh_token", "the refresh token is not valid; sign in again") from exc


@router.post("/refresh", response_model=Session)
async def refresh(body: RefreshRequest, gw: Gateway) -> Session:
    """Exchange a refresh token for new tokens; the presented one is spent. Presenting a spent
    token again revokes every token of that sign-in."""
    tenant_id = _tenant_of(body.refresh_token)
    async with tenant_tx(gw.db, tenant_id) as conn:
        outcome, row = await sessions.consume(conn, digest(body.refresh_token))
        if row is None:  # unknown: nothing was written
            raise _refused(outcome)
        if outcome == "reused":
            await audit.record(
                conn,
                tenant_id,
                row["user_id"],
                "auth.refresh_reuse",
                row["user_id"],
                {"family_id": str(row["family_id"])},
            )
        account = await accounts.get_account(conn, row["user_id"]) if outcome == "ok" else None
        if account is not None and not account["disabled"]:
            return await issue_session(conn, gw.settings, tenant_id, account, row["family_id"])
    if outcome == "reused":
        raise ApiError(
            401,
            "refresh_token_reused",
            "this refresh token was already used; every session of this sign-in is revoked, sign in again",
        )
    raise _refused(outcome)


def _refused(outcome: sessions.Outcome) -> ApiError:
    """A refresh token that gives no session: unknown, revoked, expired, or (`ok`) its account is disabled."""
    return ApiError(
        401,
        "invalid_refresh_token",
        f"the refresh token is {outcome if outcome != 'ok' else 'disabled'}; sign in again",
    )


@router.post("/signout", status_code=204)
async def sign_out(body: RefreshRequest, gw: Gateway) -> None:
    """Revoke the sign-in this refresh token belongs to (the access JWT expires on its own, soon)."""
    tenant_id = _tenant_of(body.refresh_token)
    async with tenant_tx(gw.db, tenant_id) as conn:
        outcome, row = await sessions.consume(conn, digest(body.refresh_token))
        if row is not None:
            await sessions.revoke_family(conn, row["family_id"])
            await audit.record(conn, tenant_id, row["user_id"], "auth.sign_out", row["user_id"])


@router.post("/invites/accept", status_code=201, response_model=Session)
async def accept_invite(body: InviteAccept, gw: Gateway) -> Session:
    """Create the invited account with the role the admin chose; the link works once."""
    tenant_id = _invite_tenant(body.token)
    password_hash = await hash_password(body.password)
    try:
        async with tenant_tx(gw.db, tenant_id) as conn:
            invite = await invites.open_invite(conn, digest(body.token))
            if invite is None:
                raise ApiError(404, "invite_invalid", "this invite link is invalid, expired or already used")
            account = await accounts.create_account(
                conn,
                tenant_id=tenant_id,
                email=invite["email"],
                password_hash=password_hash,
                role=invite["role"],
                display_name=body.display_name,
            )
            await invites.mark_accepted(conn, invite["id"])
            await audit.record(
                conn, tenant_id, account["user_id"], "invite.accept", str(invite["id"]), {"role": invite["role"]}
            )
            return await issue_session(conn, gw.settings, tenant_id, account)
    except psycopg.errors.UniqueViolation as exc:
        raise ApiError(409, "email_taken", "an account with this email already exists; sign in instead") from exc


def _invite_tenant(token: str) -> uuid.UUID:
    try:
        return tenant_of(token)
    except MalformedToken as exc:
        raise ApiError(404, "invite_invalid", "this invite link is invalid, expired or already used") from exc
