"""The platform operator role (issue 20's security model), on the real gateway, NATS and Postgres.

Only an operator creates tenants, at a limited rate; a tenant admin manages only its own tenant
and cannot escalate; an operator token opens no tenant's documents; anonymous widget handshakes
are limited per page origin.
"""

from __future__ import annotations

import uuid

import httpx
import pytest

from services.gateway.app import create_app
from shared.auth.tokens import mint_token
from shared.db.tenants import ensure_tenant

pytestmark = pytest.mark.integration
SECRET = "operator-secret-0123456789abcdef0123456789"
SHOP = "https://shop.example"


@pytest.fixture
async def gateway(settings, infra):
    configured = settings.model_copy(
        update={
            "secret_key": SECRET,
            "rate_limit_tenant_creation_per_min": 3,
            "rate_limit_widget_init_per_min": 2,
        }
    )
    app = create_app(configured)
    async with app.router.lifespan_context(app):
        yield app


def client(app, token: str | None = None, **headers: str) -> httpx.AsyncClient:
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://gw", headers={**auth, **headers}, timeout=30
    )


async def registered(settings, name: str) -> uuid.UUID:
    tenant_id = uuid.uuid4()
    await ensure_tenant(settings.admin_url, tenant_id, name)
    return tenant_id


async def test_a_tenant_admin_cannot_create_tenants_or_reach_another_tenant(settings, gateway):
    home = await registered(settings, "Home Co")
    stranger = await registered(settings, "Stranger Co")
    admin = mint_token(SECRET, tenant_id=home, sub="boss", role="admin")
    async with client(gateway, admin) as boss:
        refused = await boss.post("/v1/admin/tenants", json={"name": "Shadow tenant", "allowed_domains": [SHOP]})
        assert refused.status_code == 403
        assert refused.json()["error"]["message"] == "only a platform operator can create tenants"
        assert (await boss.get(f"/v1/admin/tenants/{stranger}")).status_code == 404
        hijack = await boss.put(f"/v1/admin/tenants/{stranger}/domains", json={"allowed_domains": [SHOP]})
        assert hijack.status_code == 404
        own = await boss.put(f"/v1/admin/tenants/{home}/domains", json={"allowed_domains": [SHOP]})
        assert own.status_code == 200 and own.json()["allowed_domains"] == [SHOP]
    ops = mint_token(SECRET, tenant_id=home, sub="ops", role="operator")
    async with client(gateway, ops) as operator:
        # A platform role, not a tenant one: no tenant's documents, chats or admin pages.
        assert (await operator.get("/v1/documents")).status_code == 403
        assert (await operator.get(f"/v1/admin/tenants/{home}")).status_code == 403


async def test_only_an_operator_creates_tenants_and_at_a_limited_rate(settings, gateway):
    ops = mint_token(SECRET, tenant_id=await registered(settings, "Platform"), sub="ops-1", role="operator")
    async with client(gateway, ops) as operator:
        created = [
            await operator.post("/v1/admin/tenants", json={"name": f"Tenant {n}", "allowed_domains": [SHOP]})
            for n in range(4)
        ]
    assert [r.status_code for r in created] == [201, 201, 201, 429]
    assert int(created[-1].headers["Retry-After"]) >= 1
    assert created[-1].json()["error"]["details"]["scope"] == "operator"
    first = created[0].json()
    assert first["name"] == "Tenant 0" and first["allowed_domains"] == [SHOP]
    # The new tenant is real: its own admin reads it.
    own_admin = mint_token(SECRET, tenant_id=first["id"], sub="new-admin", role="admin")
    async with client(gateway, own_admin) as admin:
        assert (await admin.get(f"/v1/admin/tenants/{first['id']}")).json()["name"] == "Tenant 0"
    other_ops = mint_token(SECRET, tenant_id=first["id"], sub="ops-2", role="operator")
    async with client(gateway, other_ops) as operator:
        assert (await operator.post("/v1/admin/tenants", json={"name": "Per operator"})).status_code == 201


async def test_widget_handshakes_are_limited_per_page_origin(settings, gateway):
    tenant = await registered(settings, "Widget Co")
    admin = mint_token(SECRET, tenant_id=tenant, sub="boss", role="admin")
    other_site = "https://other.example"
    async with client(gateway, admin) as boss:
        saved = await boss.put(f"/v1/admin/tenants/{tenant}/domains", json={"allowed_domains": [SHOP, other_site]})
        assert saved.status_code == 200
    async with client(gateway, Origin=SHOP) as page:
        answers = [await page.post("/v1/widget/init", json={"tenant_id": str(tenant)}) for _ in range(3)]
    assert [r.status_code for r in answers] == [201, 201, 429]
    assert answers[-1].json()["error"]["details"]["scope"] == "origin"
    async with client(gateway, Origin=other_site) as page:
        assert (await page.post("/v1/widget/init", json={"tenant_id": str(tenant)})).status_code == 201


async def test_tenant_origin_and_document_changes_land_in_the_audit_log_without_content(settings, gateway):
    ops = mint_token(SECRET, tenant_id=await registered(settings, "Audit platform"), sub="ops-audit", role="operator")
    async with client(gateway, ops) as operator:
        tenant = (await operator.post("/v1/admin/tenants", json={"name": "Audited Co"})).json()["id"]
    admin = mint_token(SECRET, tenant_id=tenant, sub="auditor", role="admin")
    async with client(gateway, admin) as boss:
        await boss.put(f"/v1/admin/tenants/{tenant}/domains", json={"allowed_domains": [SHOP]})
        files = {"file": ("secret-plan.txt", b"The merger closes on 1 May.", "text/plain")}
        document = (await boss.post("/v1/documents", files=files, data={"title": "Merger plan"})).json()
        assert (await boss.delete(f"/v1/documents/{document['id']}")).status_code == 204
        entries = (await boss.get("/v1/admin/audit")).json()["items"]
    assert [(e["actor"], e["action"], e["target"]) for e in entries] == [
        ("auditor", "document.delete", document["id"]),
        ("auditor", "document.upload", document["id"]),
        ("auditor", "tenant.origins_change", tenant),
        ("ops-audit", "tenant.create", tenant),
    ]
    assert entries[2]["detail"] == {"before": [], "after": [SHOP]}
    logged = str(entries)
    assert "Merger plan" not in logged and "merger closes" not in logged and "secret-plan" not in logged
