"""The second ingest phase (a ready document's vectors) on real NATS, Postgres and the embedding
service: when it dead-letters it is queued again, a bounded number of rounds, the document says
where it stands, and which version answers an untagged question follows (docs/ingest.md).

Words first (the default): the new version is `ready` (searchable by words) before its vectors;
the embedding service goes away halfway through them.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from services.embedder import worker as embedder_worker
from services.ingest import worker as ingest_worker
from services.retrieval import worker as retrieval_worker
from shared.auth.tokens import mint_token
from shared.contracts import Scope, SearchRequest
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from shared.embeddings.client import EmbeddingClient
from shared.embeddings.provider import use_embedding_service
from shared.retrieval import client as retrieval
from shared.runtime.service import Infra
from tests.conftest import EXAMPLES, ROOT
from tests.integration.conftest import running
from tests.integration.helpers import ingest_complete, read_events, submit_file
from tests.integration.test_gateway import SECRET, gateway_client

pytestmark = pytest.mark.integration

QUESTION = "How long are the records of job applicants kept?"
# A real 28-page filing: ~100 chunks, so the embedding service goes away well before its vectors are all stored.
FILING = ROOT / "evals" / "real" / "sec-10q" / "docs" / "2022 Q3 AAPL.pdf"


def fragile(infra: Infra, retries: int) -> Infra:
    """One text per embedding slice, a second's wait for the embedding service, two attempts a round;
    the chunk vectors only (the sentence vectors of a filing would only make the test longer)."""
    settings = infra.settings.model_copy(
        update={
            "embedding_batch": 1,
            "embed_wait_s": 1.0,
            "max_deliver": 2,
            "vectors_retries": retries,
            "ingest_sentence_vectors": False,
        }
    )
    return Infra(settings=settings, bus=infra.bus, db=infra.db)


@asynccontextmanager
async def embedding_service(infra: Infra, embedder) -> AsyncIterator[asyncio.Event]:
    """The embedding service as its own task; setting the event it yields stops it mid-work."""
    stop = asyncio.Event()
    task = asyncio.create_task(embedder_worker.answer(infra, embedder_worker.build_service(infra, embedder), stop))
    try:
        yield stop
    finally:
        stop.set()
        await asyncio.wait([task], timeout=15)


async def searched(infra: Infra, tenant_id: uuid.UUID, user_id: str, scope: Scope | None = None) -> set[uuid.UUID]:
    request = SearchRequest(tenant_id=tenant_id, user_id=user_id, query_text=QUESTION, min_similarity=-1.0)
    if scope is not None:
        request.scope = scope
    return {c.document_id for c in (await retrieval.search(infra.bus, request)).chunks}


async def document(infra: Infra, tenant_id: uuid.UUID, user_id: str, document_id: uuid.UUID) -> dict:
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        row = await docs.get_document(conn, document_id)
    assert row is not None
    return row


async def old_and_new_halfway(infra: Infra, tenant_id: uuid.UUID, user_id: str, stop: asyncio.Event):
    """A complete first version, then a second that is `ready` and halfway through its vectors when
    the embedding service goes away."""
    old = await submit_file(infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf", title="Retention")
    await read_events(infra, infra.bus.subjects.evt_ingest(old.document_id), until=ingest_complete)
    new = await submit_file(infra, tenant_id, user_id, FILING, title="Retention", version="2")
    halfway = await read_events(
        infra,
        infra.bus.subjects.evt_ingest(new.document_id),
        until=lambda e: e["status"] == "ready" and e["stage"] == "embedding" and e["done"] > 0,
    )
    stop.set()
    assert halfway[-1]["total"] > halfway[-1]["done"]
    return old, new


@asynccontextmanager
async def new_version_stopped_halfway(infra: Infra, tenant, embedder, retries: int) -> AsyncIterator[tuple]:
    """Workers with `fragile` settings, a complete old version and a new one whose vectors phase
    lost the embedding service halfway: (worker's infra, old, new, the new one's progress subject)."""
    tenant_id, user_id = tenant
    worker = fragile(infra, retries)
    use_embedding_service(EmbeddingClient(infra.bus, dim=infra.settings.embedding_dim, timeout_s=10))
    try:
        async with running(lambda s: ingest_worker.serve(worker, s), lambda s: retrieval_worker.serve(infra, s)):
            async with embedding_service(worker, embedder) as stop:
                old, new = await old_and_new_halfway(infra, tenant_id, user_id, stop)
            yield worker, old, new, infra.bus.subjects.evt_ingest(new.document_id)
    finally:
        use_embedding_service(None)


async def test_a_failed_vectors_phase_is_queued_again_and_completes_once_the_embedder_is_back(infra, tenant, embedder):
    tenant_id, user_id = tenant
    async with new_version_stopped_halfway(infra, tenant, embedder, retries=8) as (worker, old, new, subject):
        # The new version is searchable by its words, but the complete old one answers untagged questions.
        assert await searched(infra, tenant_id, user_id) == {old.document_id}
        assert await searched(infra, tenant_id, user_id, Scope(doc_ids=[new.document_id])) == {new.document_id}
        retrying = await read_events(infra, subject, until=lambda e: e["stage"] == "retrying")
        assert retrying[-1]["status"] == "ready" and "trying again, round 2 of 9" in retrying[-1]["error"]
        row = await document(infra, tenant_id, user_id, new.document_id)
        assert row["vectors_state"] == "retrying" and row["vectors_error"]
        assert 0 < row["vectors_pending"] < row["chunk_count"]  # the stored slices stay; nothing half-written
        async with embedding_service(worker, embedder):
            events = await read_events(
                infra, subject, until=lambda e: e["stage"] == "done" and e["status"] == "ready", timeout=300
            )
            assert events[-1]["error"] is None
            row = await document(infra, tenant_id, user_id, new.document_id)
            assert row["vectors_state"] == "complete" and row["vectors_pending"] == 0
            assert row["vectors_error"] is None
            # Complete: the new version now answers untagged questions, the old one when tagged.
            assert await searched(infra, tenant_id, user_id) == {new.document_id}
            old_only = Scope(doc_ids=[old.document_id])
            assert await searched(infra, tenant_id, user_id, old_only) == {old.document_id}


async def test_a_vectors_phase_that_fails_every_round_leaves_the_old_version_answering(
    settings, infra, tenant, embedder
):
    tenant_id, user_id = tenant
    async with new_version_stopped_halfway(infra, tenant, embedder, retries=1) as (_, old, new, subject):
        final = await read_events(infra, subject, until=lambda e: e["stage"] == "done", timeout=120)
        assert [e["stage"] for e in final].count("retrying") == 1
        assert final[-1]["status"] == "ready"
        assert "could not be completed after 2 rounds" in final[-1]["error"]
        row = await document(infra, tenant_id, user_id, new.document_id)
        assert row["status"] == "ready" and row["vectors_state"] == "failed" and row["vectors_pending"] > 0
        async with gateway_client(settings, mint_token(SECRET, tenant_id=tenant_id, sub=user_id)) as client:
            listed = (await client.get(f"/v1/documents/{new.document_id}")).json()
            assert listed["vectors_state"] == "failed" and "after 2 rounds" in listed["vectors_error"]
            # The events stream of a document at its end is that end, with the reason, at once.
            stream = (await client.get(f"/v1/documents/{new.document_id}/events")).text
            assert '"stage":"done"' in stream.replace(" ", "") and "after 2 rounds" in stream
        # Searchable by its words when tagged; the complete old version answers untagged questions.
        assert await searched(infra, tenant_id, user_id) == {old.document_id}
        assert await searched(infra, tenant_id, user_id, Scope(doc_ids=[new.document_id])) == {new.document_id}
