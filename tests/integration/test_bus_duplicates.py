"""Ingest jobs published on the bus with bytes the user already has (docs/ingest.md, duplicates):
one `duplicate` event on the job's own subject naming the existing document, nothing stored;
`keep_duplicate` and a new version label are accepted."""

from __future__ import annotations

import pytest

from services.ingest import worker as ingest_worker
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.helpers import ingest_finished, read_events, submit_file

pytestmark = pytest.mark.integration

POLICY = EXAMPLES / "data-retention-policy.pdf"


async def test_the_same_bytes_published_twice_end_in_a_duplicate_event_naming_the_document(infra, tenant, embedder):
    tenant_id, user_id = tenant

    async def outcome(**fields: object) -> tuple[dict, object]:
        cmd = await submit_file(infra, tenant_id, user_id, POLICY, **fields)
        events = await read_events(infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_finished)
        return events[-1], cmd

    async with running(lambda s: ingest_worker.serve(infra, s)):
        first, original = await outcome(title="Retention policy")
        assert first["status"] == "ready"

        for fields in ({"title": "Copy of the retention policy"}, {"title": "Retention policy"}):
            event, copy = await outcome(**fields)
            assert event["status"] == "duplicate" and event["stage"] == "done"
            assert event["existing_document_id"] == str(original.document_id)
            assert "already in the library as Retention policy (v1)" in event["error"]
            assert "keep_duplicate=true" in event["error"]
            async with tenant_tx(infra.db, tenant_id, user_id) as conn:
                assert await docs.get_document(conn, copy.document_id) is None  # nothing stored for it

        kept, copy = await outcome(title="Copy of the retention policy", keep_duplicate=True)
        assert kept["status"] == "ready" and kept["document_id"] == str(copy.document_id)
        version, new = await outcome(title="Retention policy", version="2")
        assert version["status"] == "ready" and version["document_id"] == str(new.document_id)
        async with tenant_tx(infra.db, tenant_id, user_id) as conn:
            titles = sorted((d["title"], d["version"]) for d in await docs.list_documents(conn))
        assert titles == [("Copy of the retention policy", "1"), ("Retention policy", "1"), ("Retention policy", "2")]
