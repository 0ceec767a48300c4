"""The signed-in person: who they are, and the onboarding answers the agent's prompts read."""

from __future__ import annotations

from fastapi import APIRouter

from services.gateway.auth import AnyPrincipal, WorkspaceUser
from services.gateway.deps import Gateway
from services.gateway.errors import documented_errors
from services.gateway.tenancy import ensure_user
from shared.contracts.accounts import Me, Onboarding
from shared.db import accounts
from shared.db.pool import tenant_tx

router = APIRouter(prefix="/v1/me", tags=["auth"], responses=documented_errors(400, 401, 403, 413, 422, 503))

PROFILE_QUERY = "SELECT company, location AS country, industry, description, email FROM users WHERE id = %s"


@router.get("", response_model=Me)
async def me(p: AnyPrincipal, gw: Gateway) -> Me:
    """Onboarded: the account submitted the form once (a token-only subject: its profile has a company)."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        row = await (await conn.execute(PROFILE_QUERY, (p.user_id,))).fetchone()
        account = await accounts.get_account(conn, p.user_id)
    complete = bool(row and row["company"] and row["country"] and row["industry"])
    profile = (
        Onboarding(**{k: row[k] or "" for k in ("company", "country", "industry", "description")}) if complete else None
    )
    onboarded = account["onboarded_at"] is not None if account else complete
    email = account["email"] if account else (row or {}).get("email")
    return Me(user_id=p.user_id, tenant_id=p.tenant_id, role=p.role, email=email, onboarded=onboarded, profile=profile)


@router.put("/onboarding", response_model=Onboarding)
async def onboarding(body: Onboarding, p: WorkspaceUser, gw: Gateway) -> Onboarding:
    """Save the onboarding (or settings) answers into the profile: company, country (the
    profile's location), industry and description go into every answer's system prompt."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        await ensure_user(conn, p)
        await conn.execute(
            "UPDATE users SET company = %s, location = %s, industry = %s, description = %s WHERE id = %s",
            (body.company, body.country, body.industry, body.description or None, p.user_id),
        )
        await accounts.mark_onboarded(conn, p.user_id)
    return body
