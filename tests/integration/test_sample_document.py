"""The first run's sample document (policypal/sample.py): the demo user's library gets the example
policy once, ready to ask about; a later run, or a library that has documents, gets nothing."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from policypal.sample import MARKER, TITLE, seed_sample_document
from services.ingest import worker as ingest_worker
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from shared.db.tenants import ensure_tenant
from tests.conftest import EXAMPLES
from tests.integration.conftest import running

pytestmark = pytest.mark.integration


async def library(infra, tenant_id, user_id) -> list[dict]:
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        return await docs.list_documents(conn)


async def settled(infra, tenant_id, user_id) -> list[dict]:
    """The library once its documents are ingested (the ingest worker writes the row when it starts)."""
    for _ in range(240):
        found = await library(infra, tenant_id, user_id)
        if found and all(d["status"] in ("ready", "failed") for d in found):
            return found
        await asyncio.sleep(0.25)
    raise AssertionError(f"the sample was not ingested: {await library(infra, tenant_id, user_id)}")


async def test_the_first_run_puts_the_example_policy_in_the_demo_library_once(infra, embedder, tmp_path):
    tenant_id, user_id = uuid.uuid4(), f"demo-{uuid.uuid4().hex[:8]}"
    await ensure_tenant(infra.settings.admin_url, tenant_id, "Demo", user_id, "Demo User")
    settings = infra.settings.model_copy(
        update={
            "data_dir": tmp_path,
            "demo_tenant_id": str(tenant_id),
            "demo_user_id": user_id,
            "sample_document": EXAMPLES / "data-retention-policy.pdf",
        }
    )
    async with running(lambda s: ingest_worker.serve(infra, s)):
        said = await seed_sample_document(settings)
        assert said and TITLE in said
        (ready,) = await settled(infra, tenant_id, user_id)
    assert ready["status"] == "ready", ready
    assert docs.display_name(ready) == "Northwind Data Retention Policy (Example)"
    assert ready["doc_type"] == "company_policy" and ready["chunk_count"] > 0
    assert (tmp_path / MARKER).exists()

    # Deleted by the user, it stays deleted: the data directory remembers it was given.
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        assert await docs.delete_document(conn, ready["id"])
    assert await seed_sample_document(settings) is None
    assert await library(infra, tenant_id, user_id) == []


async def test_no_sample_when_turned_off_and_a_clear_line_when_the_file_is_missing(infra, tenant, tmp_path):
    tenant_id, user_id = tenant
    settings = infra.settings.model_copy(
        update={"data_dir": tmp_path, "demo_tenant_id": str(tenant_id), "demo_user_id": user_id}
    )
    assert await seed_sample_document(settings.model_copy(update={"sample_document": None})) is None
    assert not (tmp_path / MARKER).exists()
    missing = await seed_sample_document(settings.model_copy(update={"sample_document": tmp_path / "gone.pdf"}))
    assert missing and "demo library starts empty" in missing
