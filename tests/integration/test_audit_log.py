"""The audit log is append-only and tenant-scoped by Postgres itself, not by query discipline."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from shared.db import audit
from shared.db.pool import tenant_tx
from shared.db.tenants import ensure_tenant

pytestmark = pytest.mark.integration


async def test_app_role_can_append_and_read_but_never_rewrite(infra, settings):
    tenant = uuid.uuid4()
    await ensure_tenant(settings.admin_url, tenant, "Audited")
    await audit.record(infra.db, tenant, "alice", "invite.create", "invite-1", {"role": "user"}, "a" * 32)
    async with tenant_tx(infra.db, tenant) as conn:
        rows = await audit.page(conn, limit=10)
    assert [(r["actor"], r["action"], r["target"], r["detail"], r["trace_id"]) for r in rows] == [
        ("alice", "invite.create", "invite-1", {"role": "user"}, "a" * 32)
    ]
    for statement in ("UPDATE audit_log SET actor = 'mallory'", "DELETE FROM audit_log", "TRUNCATE audit_log"):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            async with tenant_tx(infra.db, tenant) as conn:
                await conn.execute(statement)
    async with tenant_tx(infra.db, tenant) as conn:
        assert [r["actor"] for r in await audit.page(conn, limit=10)] == ["alice"]


async def test_a_tenant_neither_reads_nor_writes_another_tenants_entries(infra, settings):
    tenant_a, tenant_b = uuid.uuid4(), uuid.uuid4()
    await ensure_tenant(settings.admin_url, tenant_a, "A")
    await ensure_tenant(settings.admin_url, tenant_b, "B")
    await audit.record(infra.db, tenant_b, "bob", "user.disable", "carol")
    async with tenant_tx(infra.db, tenant_a) as conn:
        assert await audit.page(conn, limit=10) == []
        count = await conn.execute("SELECT count(*) AS n FROM audit_log WHERE tenant_id = %s", (tenant_b,))
        assert (await count.fetchone())["n"] == 0
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        async with tenant_tx(infra.db, tenant_a) as conn:
            await audit.record(conn, tenant_b, "mallory", "user.disable", "bob")


async def test_pages_are_newest_first_and_continue_without_overlap(infra, settings):
    tenant = uuid.uuid4()
    await ensure_tenant(settings.admin_url, tenant, "Paged")
    for n in range(5):
        await audit.record(infra.db, tenant, f"actor-{n}", "auth.sign_in")
    async with tenant_tx(infra.db, tenant) as conn:
        first = await audit.page(conn, limit=3)
        rest = await audit.page(conn, limit=3, before=first[-1]["id"])
    assert [r["actor"] for r in first + rest] == [f"actor-{n}" for n in (4, 3, 2, 1, 0)]
