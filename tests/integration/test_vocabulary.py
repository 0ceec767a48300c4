"""Which words a reader's library never uses (shared/db/vocabulary.py), on the real full-text index and
under row-level security: another tenant's or another user's private documents never count."""

from __future__ import annotations

import uuid

import pytest

from shared.db import documents as docs
from shared.db.pool import tenant_tx
from shared.db.tenants import ensure_tenant
from shared.db.vocabulary import unused_words
from tests.integration.test_rls import make_document

pytestmark = pytest.mark.integration


async def test_a_word_is_used_only_when_a_readable_ready_document_holds_it(infra, settings):
    tenant_a, tenant_b = uuid.uuid4(), uuid.uuid4()
    await ensure_tenant(settings.admin_url, tenant_a, "A", "alice")
    await ensure_tenant(settings.admin_url, tenant_b, "B", "bob")
    await make_document(infra, tenant_a, "alice", "Institutions must keep a leverage ratio of at least 3%.")
    await make_document(infra, tenant_b, "bob", "Payroll records are retained for six years.")
    asked = ["Leverages", "payroll", "institution", "which", "loan-to-value"]

    async with tenant_tx(infra.db, tenant_a, "alice") as conn:
        # Stemmed as the index stems ("Leverages", "institution"); a stop word has no stems and is used.
        assert await unused_words(conn, asked) == ["payroll", "loan-to-value"]
    async with tenant_tx(infra.db, tenant_b, "bob") as conn:
        assert await unused_words(conn, asked) == ["Leverages", "institution", "loan-to-value"]
    async with tenant_tx(infra.db, tenant_a, "mallory") as conn:  # alice's document is private
        assert await unused_words(conn, ["leverage"]) == ["leverage"]

    failed = await make_document(infra, tenant_b, "bob", "A failed upload about mortgages.")
    async with tenant_tx(infra.db, tenant_b, "bob") as conn:
        await docs.set_status(conn, failed, "failed", error="unreadable")
        assert await unused_words(conn, ["mortgages"]) == ["mortgages"]
        assert await unused_words(conn, []) == []
