"""Single sign-on routes: start (redirect to the provider), callback (check the answer, map the
subject to an account and role), and the hand-off of the new session to the sign-in page.

The session never travels in a URL: the callback leaves its refresh token in an HttpOnly cookie
scoped to the hand-off route, which the sign-in page redeems (rotating it) once.
"""

from __future__ import annotations

import uuid

import psycopg
from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import RedirectResponse

from services.gateway.deps import Gateway, GatewayState
from services.gateway.errors import ApiError, documented_errors
from services.gateway.routes.auth import refresh
from services.gateway.sessions import issue_session
from services.gateway.sso import STATE_COOKIE, STATE_TTL_S, SsoClients, SsoError, role_for
from shared.contracts.accounts import RefreshRequest, Session
from shared.db import accounts, audit
from shared.db.conn import Conn
from shared.db.pool import tenant_tx

router = APIRouter(prefix="/v1/auth/sso", tags=["auth"], responses=documented_errors(400, 401, 403, 404, 413, 422, 503))
HANDOFF_COOKIE = "pp_sso_session"
HANDOFF_PATH = "/v1/auth/sso/session"


async def clients(gw: Gateway) -> SsoClients:
    return gw.sso


@router.get("/{tenant_id}/start", response_class=RedirectResponse, status_code=302)
async def start(tenant_id: uuid.UUID, request: Request, sso: SsoClients = Depends(clients)) -> RedirectResponse:
    """Send the browser to the tenant's identity provider (authorization code + PKCE)."""
    try:
        url, state = await sso.start(str(tenant_id), str(request.url_for("sso_callback")))
    except SsoError as exc:
        raise ApiError(404, exc.code, str(exc)) from exc
    response = RedirectResponse(url, status_code=302)
    response.set_cookie(STATE_COOKIE, state, max_age=STATE_TTL_S, httponly=True, samesite="lax", path="/v1/auth/sso")
    return response


@router.get("/callback", name="sso_callback", response_class=RedirectResponse, status_code=302)
async def callback(request: Request, gw: Gateway, sso: SsoClients = Depends(clients)) -> RedirectResponse:
    """The provider's redirect back: on success a session hand-off cookie, else the reason on the sign-in page."""
    try:
        tenant, claims = await sso.finish(
            request.cookies.get(STATE_COOKIE), dict(request.query_params), str(request.url_for("sso_callback"))
        )
        session = await sign_in_subject(gw, sso, uuid.UUID(tenant), claims)
    except SsoError as exc:
        response = RedirectResponse(f"/signin?sso_error={exc.code}", status_code=302)
    else:
        response = RedirectResponse("/signin?sso=done", status_code=302)
        response.set_cookie(
            HANDOFF_COOKIE, session.refresh_token, max_age=120, httponly=True, samesite="strict", path=HANDOFF_PATH
        )
    response.delete_cookie(STATE_COOKIE, path="/v1/auth/sso")
    return response


@router.post("/session", response_model=Session)
async def handoff(request: Request, response: Response, gw: Gateway) -> Session:
    """Redeem the hand-off cookie once for the session (its refresh token is rotated here, and
    the cookie is cleared so a reload does not replay it)."""
    token = request.cookies.get(HANDOFF_COOKIE)
    if not token:
        raise ApiError(401, "sso_no_session", "no single sign-on is waiting to be completed; sign in again")
    response.delete_cookie(HANDOFF_COOKIE, path=HANDOFF_PATH)
    return await refresh(RefreshRequest(refresh_token=token), gw)


async def sign_in_subject(gw: GatewayState, sso: SsoClients, tenant_id: uuid.UUID, claims: dict) -> Session:
    """Map (issuer, subject) to the tenant's account, creating it on first sign-in; the role
    follows the provider's claim on every sign-in."""
    provider = sso.provider(str(tenant_id))
    role = role_for(provider, claims)
    if role is None:
        raise SsoError("sso_no_role", "your identity provider account has no PolicyPal role")
    issuer, subject = claims["iss"], str(claims["sub"])
    try:
        async with tenant_tx(gw.db, tenant_id) as conn:
            account = await accounts.by_identity(conn, issuer, subject)
            if account is None:
                account = await first_sign_in(conn, tenant_id, issuer, subject, claims, role)
            if account["disabled"]:
                raise SsoError("account_disabled", "this account is disabled; ask your tenant admin")
            if account["role"] != role:
                await accounts.update_account(conn, account["user_id"], role=role, disabled=None)
                await audit.record(
                    conn,
                    tenant_id,
                    "sso",
                    "user.role_change",
                    account["user_id"],
                    {"from": account["role"], "to": role},
                )
                account = {**account, "role": role}
            await audit.record(
                conn, tenant_id, account["user_id"], "auth.sso_sign_in", account["user_id"], {"issuer": issuer}
            )
            return await issue_session(conn, gw.settings, tenant_id, account)
    except psycopg.errors.UniqueViolation as exc:
        raise SsoError("email_taken", "this email already has an account elsewhere; ask your admin") from exc


async def first_sign_in(conn: Conn, tenant_id: uuid.UUID, issuer: str, subject: str, claims: dict, role: str) -> dict:
    email = str(claims.get("email") or "").strip().lower()
    if not email:
        raise SsoError("sso_no_email", "your identity provider did not share an email address")
    account = await accounts.create_account(
        conn, tenant_id=tenant_id, email=email, password_hash=None, role=role, display_name=claims.get("name")
    )
    await accounts.link_identity(conn, tenant_id, issuer, subject, account["user_id"])
    return account
