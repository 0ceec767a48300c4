"""Tenant administration (docs/architecture.md §8): create tenants and set the origins allowed to embed the widget.

Creating a tenant is the platform operator's power; a tenant admin manages only its own tenant.
Tenant knowledge for the widget is the tenant's documents uploaded with `visibility=tenant`.
"""

from __future__ import annotations

import uuid

from fastapi import APIRouter

from services.gateway.auth import PlatformOperator, TenantAdmin
from services.gateway.deps import Gateway
from services.gateway.errors import documented_errors, not_found
from services.gateway.ratelimit import enforce
from shared.contracts.api import TenantCreate, TenantDomains, TenantOut
from shared.db import audit, tenants
from shared.db.pool import tenant_tx

router = APIRouter(
    prefix="/v1/admin/tenants", tags=["admin"], responses=documented_errors(400, 401, 403, 404, 413, 422, 429, 503)
)


@router.post("", status_code=201, response_model=TenantOut)
async def create_tenant(body: TenantCreate, p: PlatformOperator, gw: Gateway) -> TenantOut:
    """Register a new tenant. Only a platform operator may, at a limited rate per operator."""
    enforce(gw.limits.tenant_creation, p.sub, "operator")
    tenant_id = uuid.uuid4()
    async with tenant_tx(gw.db, tenant_id) as conn:
        row = await tenants.create_tenant(conn, tenant_id, body.name, body.allowed_domains)
        await audit.record(
            conn, tenant_id, p.user_id, "tenant.create", str(tenant_id), {"allowed_domains": body.allowed_domains}
        )
    return TenantOut(**row)


@router.get("/{tenant_id}", response_model=TenantOut)
async def get_tenant(tenant_id: uuid.UUID, p: TenantAdmin, gw: Gateway) -> TenantOut:
    """An admin sees only its own tenant; any other id does not exist for it."""
    if tenant_id != p.tenant_id:
        raise not_found("tenant")
    async with tenant_tx(gw.db, tenant_id) as conn:
        row = await tenants.get_tenant(conn, tenant_id)
    if row is None:
        raise not_found("tenant")
    return TenantOut(**row)


@router.put("/{tenant_id}/domains", response_model=TenantOut)
async def set_domains(tenant_id: uuid.UUID, body: TenantDomains, p: TenantAdmin, gw: Gateway) -> TenantOut:
    """Replace the origins (scheme://host[:port]) allowed to embed the tenant's widget."""
    if tenant_id != p.tenant_id:
        raise not_found("tenant")
    async with tenant_tx(gw.db, tenant_id) as conn:
        before = await tenants.get_tenant(conn, tenant_id)
        row = await tenants.set_allowed_domains(conn, tenant_id, body.allowed_domains)
        if before is not None and row is not None:  # the row was read, then written, in one transaction
            detail = {"before": before["allowed_domains"], "after": row["allowed_domains"]}
            await audit.record(conn, tenant_id, p.user_id, "tenant.origins_change", str(tenant_id), detail)
    if row is None:
        raise not_found("tenant")
    return TenantOut(**row)
