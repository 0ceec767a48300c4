"""Tenant isolation is enforced by Postgres row-level security, not by query discipline."""

from __future__ import annotations

import uuid

import numpy as np
import psycopg
import pytest

from services.ingest.chunker import Chunk
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from shared.db.tenants import ensure_tenant

pytestmark = pytest.mark.integration


async def make_document(infra, tenant_id: uuid.UUID, user_id: str, text: str) -> uuid.UUID:
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        row, _ = await docs.insert_document(
            conn,
            {
                "id": uuid.uuid4(),
                "tenant_id": tenant_id,
                "user_id": user_id,
                "title": f"doc of {tenant_id}",
                "version": "1",
                "doc_type": "company_policy",
                "set_id": None,
                "source_type": "upload",
                "filename": "x.pdf",
                "mime": "application/pdf",
                "sha256": uuid.uuid4().hex,
                "byte_size": 1,
                "object_key": "k",
                "visibility": "private",
            },
        )
        vector = np.ones((1, infra.settings.embedding_dim), dtype=np.float32)
        await docs.replace_chunks(conn, row, [Chunk(0, 1, 0, len(text), None, text)], vector)
    return row["id"]


async def test_tenant_cannot_read_another_tenants_chunks(infra, settings):
    tenant_a, tenant_b = uuid.uuid4(), uuid.uuid4()
    await ensure_tenant(settings.admin_url, tenant_a, "A", "alice")
    await ensure_tenant(settings.admin_url, tenant_b, "B", "bob")
    doc_a = await make_document(infra, tenant_a, "alice", "secret of tenant A")
    doc_b = await make_document(infra, tenant_b, "bob", "secret of tenant B")

    async with tenant_tx(infra.db, tenant_a, "alice") as conn:
        texts = [r["text"] for r in await (await conn.execute("SELECT text FROM chunks")).fetchall()]
        by_id = await (await conn.execute("SELECT * FROM chunks WHERE document_id = %s", (doc_b,))).fetchall()
        foreign_doc = await docs.get_document(conn, doc_b)
        deleted = await docs.delete_document(conn, doc_b)
    assert "secret of tenant B" not in texts and "secret of tenant A" in texts
    assert by_id == [] and foreign_doc is None and deleted is False

    # Same tenant, other user: private documents stay private.
    async with tenant_tx(infra.db, tenant_a, "mallory") as conn:
        assert await docs.get_document(conn, doc_a) is None

    # Writing a row for another tenant is refused by the policy's WITH CHECK.
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        async with tenant_tx(infra.db, tenant_a, "alice") as conn:
            await conn.execute(
                "INSERT INTO conversations (thread_id, tenant_id, user_id) VALUES (%s, %s, 'alice')",
                (uuid.uuid4(), tenant_b),
            )


async def test_session_without_tenant_sees_nothing(infra, settings):
    tenant = uuid.uuid4()
    await ensure_tenant(settings.admin_url, tenant, "T", "u")
    await make_document(infra, tenant, "u", "invisible without a tenant")
    async with infra.db.pool.connection() as conn:
        for table in ("tenants", "documents", "chunks", "users"):
            row = await (await conn.execute(f"SELECT count(*) AS n FROM {table}")).fetchone()
            assert row["n"] == 0, table


async def test_app_role_cannot_bypass_rls(infra):
    async with infra.db.pool.connection() as conn:
        role = await (
            await conn.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
        ).fetchone()
        owners = await (
            await conn.execute(
                "SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public' AND tableowner = current_user"
            )
        ).fetchone()
        forced = await (
            await conn.execute(
                "SELECT relname FROM pg_class WHERE relname = ANY(%s) AND relrowsecurity AND relforcerowsecurity",
                (["tenants", "users", "sets", "documents", "chunks", "conversations", "messages", "run_stages"],),
            )
        ).fetchall()
    assert role == {"rolsuper": False, "rolbypassrls": False}
    assert owners["n"] == 0
    assert len(forced) == 8


async def test_sets_are_private_to_their_owner(infra, settings):
    tenant = uuid.uuid4()
    await ensure_tenant(settings.admin_url, tenant, "T", "owner")
    async with tenant_tx(infra.db, tenant, "owner") as conn:
        set_id = await docs.get_or_create_set(conn, tenant, "owner", "Mine")
    async with tenant_tx(infra.db, tenant, "colleague") as conn:
        assert await (await conn.execute("SELECT * FROM sets WHERE id = %s", (set_id,))).fetchall() == []
        assert await docs.list_sets(conn, "owner") == []
