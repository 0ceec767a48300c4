"""Versions, duplicates and non-PDF pages on real NATS, Postgres and the embedding service.

A new version is a document beside the old one; the old one answers while the new one ingests
and after it fails halfway (its embedder stops mid-document); the same bytes under another title
are recognised; a Word document is stored with its true type and shown as PDF pages.
"""

from __future__ import annotations

import asyncio
import io
import uuid

import docx
import pytest

from services.embedder import worker as embedder_worker
from services.ingest import worker as ingest_worker
from services.retrieval import worker as retrieval_worker
from shared.auth.tokens import mint_token
from shared.bus.publish import publish
from shared.contracts import IngestCommand, Scope, SearchRequest
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
FILING = ROOT / "evals" / "real" / "sec-10q" / "docs" / "2022 Q3 AAPL.pdf"
DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


async def unscoped(infra: Infra, tenant_id: uuid.UUID, user_id: str) -> set[uuid.UUID]:
    result = await retrieval.search(
        infra.bus, SearchRequest(tenant_id=tenant_id, user_id=user_id, query_text=QUESTION, min_similarity=-1.0)
    )
    return {c.document_id for c in result.chunks}


async def test_a_new_version_that_fails_halfway_leaves_the_old_one_answering(infra, tenant, embedder):
    tenant_id, user_id = tenant
    # One text per embedding slice, so the new version is cut off mid-document; two attempts. Ready
    # at vectors: the embedding is part of the way to `ready` (the default, words first, stores the
    # chunks before any embedding: docs/ingest.md says what a failed second phase leaves).
    fragile = Infra(
        settings=infra.settings.model_copy(
            update={"embedding_batch": 1, "embed_wait_s": 1.0, "max_deliver": 2, "ingest_ready_at": "vectors"}
        ),
        bus=infra.bus,
        db=infra.db,
    )
    service = embedder_worker.build_service(fragile, embedder)
    use_embedding_service(EmbeddingClient(infra.bus, dim=infra.settings.embedding_dim, timeout_s=10))
    stop_embedder = asyncio.Event()
    embedding = asyncio.create_task(embedder_worker.answer(fragile, service, stop_embedder))
    try:
        async with running(lambda s: ingest_worker.serve(fragile, s), lambda s: retrieval_worker.serve(infra, s)):
            old = await submit_file(
                infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf", title="Retention"
            )
            events = await read_events(infra, infra.bus.subjects.evt_ingest(old.document_id), until=ingest_complete)
            assert events[-1]["status"] == "ready"
            assert await unscoped(infra, tenant_id, user_id) == {old.document_id}

            # A real 28-page filing: ~100 chunks, so the embedder goes away well before the document is done.
            new = await submit_file(infra, tenant_id, user_id, FILING, title="Retention", version="2")
            halfway = await read_events(
                infra,
                infra.bus.subjects.evt_ingest(new.document_id),
                until=lambda e: e["stage"] == "embedding" and e["done"] > 0,
            )
            assert halfway[-1]["status"] == "processing"
            stop_embedder.set()  # the embedding service goes away mid-document
            await embedding
            # While the new version is stuck, the old one is what an untagged question searches.
            assert await unscoped(infra, tenant_id, user_id) == {old.document_id}
            failed = await read_events(
                infra, infra.bus.subjects.evt_ingest(new.document_id), until=lambda e: e["status"] == "failed"
            )
            assert "ingest failed after retries" in failed[-1]["error"]
            async with tenant_tx(infra.db, tenant_id, user_id) as conn:
                row = await docs.get_document(conn, new.document_id)
                chunks = await docs.chunk_texts(conn, new.document_id)
                old_row = await docs.get_document(conn, old.document_id)
            assert row["status"] == "failed" and chunks == []  # nothing half-written
            assert old_row["status"] == "ready" and old_row["chunk_count"] > 0
            assert await unscoped(infra, tenant_id, user_id) == {old.document_id}
    finally:
        stop_embedder.set()
        await asyncio.wait([embedding], timeout=15)
        use_embedding_service(None)


async def test_a_complete_new_version_answers_untagged_questions_and_the_old_one_when_tagged(infra, tenant, embedder):
    tenant_id, user_id = tenant
    async with running(lambda s: ingest_worker.serve(infra, s), lambda s: retrieval_worker.serve(infra, s)):
        old = await submit_file(infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf", title="Policy")
        await read_events(infra, infra.bus.subjects.evt_ingest(old.document_id), until=ingest_complete)
        edited = (EXAMPLES / "texts" / "data-retention-policy.md").read_text() + "\n\nRevised in version 2.\n"
        new = await submit_bytes(infra, tenant_id, user_id, edited.encode(), "policy-v2.md", "Policy", "2")
        await read_events(infra, infra.bus.subjects.evt_ingest(new.document_id), until=ingest_complete)
        assert await unscoped(infra, tenant_id, user_id) == {new.document_id}
        tagged = await retrieval.search(
            infra.bus,
            SearchRequest(
                tenant_id=tenant_id, user_id=user_id, query_text=QUESTION, scope=Scope(doc_ids=[old.document_id])
            ),
        )
        assert {c.document_id for c in tagged.chunks} == {old.document_id}


async def submit_bytes(infra, tenant_id, user_id, data: bytes, filename: str, title: str, version: str):
    document_id = uuid.uuid4()
    object_name = f"{tenant_id}/{document_id}"
    await (await infra.bus.uploads()).put(object_name, data)
    cmd = IngestCommand(
        tenant_id=tenant_id,
        user_id=user_id,
        object_name=object_name,
        filename=filename,
        title=title,
        version=version,
        document_id=document_id,
    )
    await publish(infra.bus, infra.bus.subjects.cmd_ingest, cmd)
    return cmd


def word_policy() -> bytes:
    document = docx.Document()
    document.add_heading("Recruitment records", level=1)
    for i in range(40):
        document.add_paragraph(f"Clause {i}: records of job applicants are kept for six months after the decision.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


async def test_same_bytes_under_another_title_are_named_and_kept_only_on_purpose(settings, infra, tenant):
    tenant_id, user_id = tenant
    token = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)
    data = word_policy()
    async with gateway_client(settings, token) as client:
        first = await client.post(
            "/v1/documents", files={"file": ("policy.docx", data)}, data={"title": "Recruitment policy"}
        )
        assert first.status_code == 202 and first.json()["mime"] == DOCX_MIME
        again = await client.post("/v1/documents", files={"file": ("copy.docx", data)}, data={"title": "HR copy"})
        assert again.status_code == 409
        error = again.json()["error"]
        assert error["code"] == "duplicate_document" and "Recruitment policy (v1)" in error["message"]
        assert error["details"]["existing"]["id"] == first.json()["id"]
        kept = await client.post(
            "/v1/documents",
            files={"file": ("copy.docx", data)},
            data={"title": "HR copy", "keep_duplicate": "true"},
        )
        assert kept.status_code == 202 and kept.json()["id"] != first.json()["id"]
        same = await client.post(
            "/v1/documents", files={"file": ("policy.docx", data)}, data={"title": "Recruitment policy"}
        )
        assert same.status_code == 200 and same.json()["id"] == first.json()["id"]  # same bytes, title, version


async def test_a_word_document_is_stored_as_itself_and_shown_as_pdf_pages(settings, infra, tenant, embedder):
    tenant_id, user_id = tenant
    token = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)
    data = word_policy()
    async with (
        running(lambda s: ingest_worker.serve(infra, s)),
        gateway_client(settings, token) as client,
    ):
        uploaded = (
            await client.post("/v1/documents", files={"file": ("policy.docx", data)}, data={"title": "Word policy"})
        ).json()
        await read_events(infra, infra.bus.subjects.evt_ingest(uploaded["id"]), until=ingest_complete)
        document = (await client.get(f"/v1/documents/{uploaded['id']}")).json()
        assert document["status"] == "ready" and document["mime"] == DOCX_MIME and document["page_count"] >= 2
        original = await client.get(f"/v1/documents/{uploaded['id']}/file")
        assert original.content == data  # the download is the upload
        pages = await client.get(f"/v1/documents/{uploaded['id']}/pages")
        assert pages.status_code == 200 and pages.headers["content-type"] == "application/pdf"
        assert pages.content.startswith(b"%PDF-")
        async with tenant_tx(infra.db, tenant_id, user_id) as conn:
            rows = await (
                await conn.execute("SELECT max(page) AS last FROM chunks WHERE document_id = %s", (uploaded["id"],))
            ).fetchone()
        assert rows["last"] == document["page_count"]


async def test_a_new_version_embeds_only_what_changed(infra, tenant, embedder):
    tenant_id, user_id = tenant
    service = embedder_worker.build_service(infra, embedder)
    use_embedding_service(EmbeddingClient(infra.bus, dim=infra.settings.embedding_dim, timeout_s=10))
    text = (EXAMPLES / "texts" / "storage-limitation-regulation.md").read_text()
    try:
        async with (
            running(lambda s: embedder_worker.answer(infra, service, s)),
            running(lambda s: ingest_worker.serve(infra, s)),
        ):
            first = await submit_bytes(infra, tenant_id, user_id, text.encode(), "reg.md", "Regulation", "1")
            await read_events(infra, infra.bus.subjects.evt_ingest(first.document_id), until=ingest_complete)
            service.recent = embedder_worker.RecentTexts()  # nothing answered from the service's own cache
            computed_before = service.batcher.stats.texts
            added = "\n\nArticle 99. Records of visitors are erased after thirty days.\n"
            second = await submit_bytes(infra, tenant_id, user_id, (text + added).encode(), "reg.md", "Regulation", "2")
            await read_events(infra, infra.bus.subjects.evt_ingest(second.document_id), until=ingest_complete)
            computed = service.batcher.stats.texts - computed_before
        async with tenant_tx(infra.db, tenant_id, user_id) as conn:
            chunks = await docs.chunk_texts(conn, second.document_id)
        assert len(chunks) > 3 and any("thirty days" in c for c in chunks)
        # The changed last chunk and its new sentence(s); every other chunk and sentence copied.
        assert 1 <= computed <= 3, computed
    finally:
        use_embedding_service(None)
