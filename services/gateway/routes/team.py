"""A tenant admin's people: invite links, roles, disabling, and the audit log (docs/architecture.md §3)."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request

from services.gateway.auth import TenantAdmin
from services.gateway.deps import Gateway
from services.gateway.errors import ApiError, documented_errors, not_found
from shared.auth.opaque import digest, new_token
from shared.contracts.accounts import (
    AccountList,
    AccountOut,
    AccountPatch,
    AuditEntry,
    AuditPage,
    InviteCreate,
    InviteOut,
)
from shared.db import accounts, audit, invites, sessions
from shared.db.pool import tenant_tx

router = APIRouter(
    prefix="/v1/admin", tags=["admin"], responses=documented_errors(400, 401, 403, 404, 409, 413, 422, 503)
)


def account_out(row: dict) -> AccountOut:
    """The public view of an account row: never its password hash."""
    fields = ("user_id", "email", "role", "disabled", "created_at")
    return AccountOut(**{k: row[k] for k in fields}, onboarded=row["onboarded_at"] is not None)


@router.post("/invites", status_code=201, response_model=InviteOut)
async def create_invite(body: InviteCreate, request: Request, p: TenantAdmin, gw: Gateway) -> InviteOut:
    """A one-time link for a colleague (no mail is sent: hand the link over yourself). The
    token travels in the URL fragment, which browsers never send to a server or put in logs."""
    token = new_token(p.tenant_id)
    async with gw.db.pool.connection() as conn:
        if await accounts.email_taken(conn, body.email):
            raise ApiError(409, "email_taken", "an account with this email already exists")
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        row = await invites.create_invite(
            conn,
            tenant_id=p.tenant_id,
            email=body.email,
            role=body.role,
            token_hash=digest(token),
            created_by=p.user_id,
            ttl_s=gw.settings.invite_ttl_s,
        )
        await audit.record(conn, p.tenant_id, p.user_id, "invite.create", str(row["id"]), {"role": body.role})
    link = f"{str(request.base_url).rstrip('/')}/invite#invite={token}"
    return InviteOut(id=row["id"], email=row["email"], role=row["role"], expires_at=row["expires_at"], link=link)


@router.get("/users", response_model=AccountList)
async def list_users(p: TenantAdmin, gw: Gateway) -> AccountList:
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        rows = await accounts.list_accounts(conn)
    return AccountList(items=[account_out(r) for r in rows])


@router.patch("/users/{user_id}", response_model=AccountOut)
async def update_user(user_id: str, body: AccountPatch, p: TenantAdmin, gw: Gateway) -> AccountOut:
    """Change a role or disable/enable; a disabled user's next request is refused and their
    refresh tokens are revoked."""
    if user_id == p.user_id:
        raise ApiError(409, "self_change", "you cannot change your own role or disable yourself")
    if body.role is None and body.disabled is None:
        raise ApiError(422, "empty_change", "send `role`, `disabled` or both")
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        change = await accounts.update_account(conn, user_id, role=body.role, disabled=body.disabled)
        if change is None:
            raise not_found("user")
        before, after = change
        if before["role"] != after["role"]:
            detail = {"from": before["role"], "to": after["role"]}
            await audit.record(conn, p.tenant_id, p.user_id, "user.role_change", user_id, detail)
        if before["disabled"] != after["disabled"]:
            await audit.record(
                conn, p.tenant_id, p.user_id, "user.disable" if after["disabled"] else "user.enable", user_id
            )
        if after["disabled"]:
            await sessions.revoke_user(conn, user_id)
    return account_out(after)


@router.get("/audit", response_model=AuditPage)
async def audit_log(
    p: TenantAdmin,
    gw: Gateway,
    limit: int = Query(50, ge=1, le=200),
    before: int | None = Query(None, ge=1, le=2**63 - 1, description="`next_before` of the previous page"),
) -> AuditPage:
    """The tenant's audit log, newest first."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        rows = await audit.page(conn, limit=limit, before=before)
    next_before = rows[-1]["id"] if len(rows) == limit else None
    return AuditPage(items=[AuditEntry(**r) for r in rows], next_before=next_before)
