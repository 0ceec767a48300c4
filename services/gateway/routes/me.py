"""The signed-in person: who they are, and the onboarding answers the agent's prompts read."""

from __future__ import annotations

from fastapi import APIRouter

from services.gateway.auth import AnyPrincipal, WorkspaceUser
from services.gateway.deps import Gateway
from services.gateway.errors import documented_errors
from services.gateway.tenancy import ensure_user
from shared.contracts.accounts import Me, Onboarding
from shared.db import accounts, users
from shared.db.pool import tenant_tx

router = APIRouter(prefix="/v1/me", tags=["auth"], responses=documented_errors(400, 401, 403, 413, 422, 503))


@router.get("", response_model=Me)
async def me(p: AnyPrincipal, gw: Gateway) -> Me:
    """Onboarded: the account submitted the form once (a token-only subject: its profile has a company)."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        row = await users.get_profile(conn, p.user_id)
        account = await accounts.get_account(conn, p.user_id)
    profile = (
        Onboarding(
            company=row["company"],
            country=row["location"],
            industry=row["industry"],
            description=row["description"] or "",
        )
        if row and row["company"] and row["location"] and row["industry"]
        else None
    )
    onboarded = account["onboarded_at"] is not None if account else profile is not None
    email = account["email"] if account else row["email"] if row else None
    name = row["display_name"] if row else None
    return Me(
        user_id=p.user_id,
        tenant_id=p.tenant_id,
        role=p.role,
        email=email,
        display_name=name if name != p.user_id else None,  # an id standing in for a name is no name
        onboarded=onboarded,
        profile=profile,
    )


@router.put("/onboarding", response_model=Onboarding)
async def onboarding(body: Onboarding, p: WorkspaceUser, gw: Gateway) -> Onboarding:
    """Save the onboarding (or settings) answers into the profile: company, country (the
    profile's location), industry and description go into every answer's system prompt."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        await ensure_user(conn, p)
        await users.save_onboarding(
            conn,
            p.user_id,
            company=body.company,
            location=body.country,
            industry=body.industry,
            description=body.description or None,
        )
        await accounts.mark_onboarded(conn, p.user_id)
    return body
