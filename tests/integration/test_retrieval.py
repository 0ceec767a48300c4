"""Retrieval semantics on real Postgres + NATS (docs/architecture.md §6): scopes, isolation, adaptive-k, balance,
sampling and filtered-search completeness.

Chunks get constructed unit vectors whose cosine similarity to the query (the first basis
vector) is known exactly, so the expectations do not depend on the embedding model. Searches go
through the retrieval worker over NATS request-reply, or straight to services/retrieval/search.py
inside `tenant_tx` where the worker adds nothing. No timing assertions.
"""

from __future__ import annotations

import math
import uuid

import numpy as np
import pytest

from services.ingest.chunker import Chunk
from services.retrieval import search
from services.retrieval import worker as retrieval_worker
from shared.contracts import SampleRequest, Scope, SearchRequest
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from shared.db.tenants import ensure_tenant
from shared.retrieval import client as retrieval
from tests.integration.conftest import running

pytestmark = pytest.mark.integration

DIM = 384


def query_vector() -> np.ndarray:
    q = np.zeros(DIM, dtype=np.float32)
    q[0] = 1.0
    return q


def at_similarity(similarity: float, axis: int) -> np.ndarray:
    """A unit vector whose cosine similarity to `query_vector()` is `similarity`."""
    v = np.zeros(DIM, dtype=np.float32)
    v[0] = similarity
    v[1 + axis % (DIM - 1)] = math.sqrt(max(0.0, 1 - similarity**2))
    return v


async def add_document(
    infra,
    tenant_id: uuid.UUID,
    user_id: str,
    similarities: list[float],
    *,
    title: str = "doc",
    visibility: str = "private",
    set_name: str | None = None,
    texts: list[str] | None = None,
    axis0: int = 0,
) -> uuid.UUID:
    """A ready document whose chunk i has similarity `similarities[i]` to the query."""
    texts = texts or [f"{title} chunk {i}" for i in range(len(similarities))]
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        set_id = await docs.get_or_create_set(conn, tenant_id, user_id, set_name) if set_name else None
        row, _ = await docs.insert_document(
            conn,
            {
                "id": uuid.uuid4(),
                "tenant_id": tenant_id,
                "user_id": user_id,
                "title": title,
                "version": "1",
                "doc_type": "company_policy",
                "set_id": set_id,
                "source_type": "upload",
                "filename": f"{title}.pdf",
                "mime": "application/pdf",
                "sha256": uuid.uuid4().hex,
                "byte_size": 1,
                "object_key": f"{tenant_id}/{title}",
                "visibility": visibility,
            },
        )
        chunks = [Chunk(i, 1 + i // 3, i * 10, i * 10 + len(t), None, t) for i, t in enumerate(texts)]
        vectors = np.stack([at_similarity(s, axis0 + i) for i, s in enumerate(similarities)])
        await docs.replace_chunks(conn, row, chunks, vectors)
    return row["id"]


def request(tenant_id, user_id, scope: Scope | None = None, **fields) -> SearchRequest:
    fields.setdefault("min_similarity", -1.0)
    return SearchRequest(
        tenant_id=tenant_id,
        user_id=user_id,
        query_embedding=query_vector().tolist(),
        scope=scope or Scope(),
        **fields,
    )


async def set_id_of(infra, tenant_id, user_id, name: str) -> uuid.UUID:
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        return await docs.get_or_create_set(conn, tenant_id, user_id, name)


async def test_scope_documents_set_and_everything_visible(infra, tenant):
    tenant_id, me = tenant
    colleague = f"colleague-{uuid.uuid4().hex[:6]}"
    mine = await add_document(infra, tenant_id, me, [0.9, 0.8], title="mine")
    in_set = await add_document(infra, tenant_id, me, [0.85, 0.75], title="in-set", set_name="Contracts")
    theirs_private = await add_document(infra, tenant_id, colleague, [0.95, 0.9], title="theirs-private")
    theirs_shared = await add_document(
        infra, tenant_id, colleague, [0.7, 0.6], title="theirs-shared", visibility="tenant"
    )
    async with running(lambda s: retrieval_worker.serve(infra, s)):

        async def docs_found(scope: Scope, **fields) -> set[uuid.UUID]:
            reply = await retrieval.search(infra.bus, request(tenant_id, me, scope, **fields))
            return {c.document_id for c in reply.chunks}

        assert await docs_found(Scope(doc_ids=[mine])) == {mine}
        assert await docs_found(Scope(doc_ids=[mine, theirs_shared])) == {mine, theirs_shared}
        assert await docs_found(Scope(set_id=await set_id_of(infra, tenant_id, me, "Contracts"))) == {in_set}
        # Everything: my documents and tenant-visible knowledge, never a colleague's private one.
        assert await docs_found(Scope()) == {mine, in_set, theirs_shared}
        assert await docs_found(Scope(), hybrid=True, query_text="chunk") == {mine, in_set, theirs_shared}
        # A colleague's private document, even named explicitly, is not there.
        assert await docs_found(Scope(doc_ids=[theirs_private])) == set()
        # The colleague sees their private document and the shared one, not mine.
        reply = await retrieval.search(infra.bus, request(tenant_id, colleague, Scope()))
        assert {c.document_id for c in reply.chunks} == {theirs_private, theirs_shared}
        # A set belongs to its owner: the colleague naming my set gets nothing.
        my_set = await set_id_of(infra, tenant_id, me, "Contracts")
        reply = await retrieval.search(infra.bus, request(tenant_id, colleague, Scope(set_id=my_set)))
        assert reply.chunks == []


async def test_identical_text_in_another_tenant_never_appears(infra, settings):
    text = "Invoices are archived for exactly seven years in the vault."
    owners = []
    for _ in range(2):
        tenant_id, user_id = uuid.uuid4(), "same-user-name"
        await ensure_tenant(settings.admin_url, tenant_id, "T", user_id)
        doc_id = await add_document(infra, tenant_id, user_id, [0.9], texts=[text], title="same title")
        owners.append((tenant_id, user_id, doc_id))
    (t1, u1, d1), (t2, _, d2) = owners
    async with running(lambda s: retrieval_worker.serve(infra, s)):
        for hybrid in (False, True):
            reply = await retrieval.search(
                infra.bus, request(t1, u1, Scope(), hybrid=hybrid, query_text="invoices archived seven years")
            )
            assert [c.document_id for c in reply.chunks] == [d1]
        # The other tenant's document id, named explicitly, is simply not there.
        reply = await retrieval.search(infra.bus, request(t1, u1, Scope(doc_ids=[d1, d2])))
        assert {c.document_id for c in reply.chunks} == {d1}
    # Keyword-only search (no embedding) is isolated the same way.
    async with tenant_tx(infra.db, t1, u1) as conn:
        hits = await search.search_all(conn, None, "invoices archived vault", total_k=10, floor=0.0, hybrid=False)
    assert [h.document_id for h in hits] == [d1]


async def test_foreign_and_deleted_document_ids_behave_like_unknown_ones(infra, tenant, settings):
    tenant_id, user_id = tenant
    other_tenant = uuid.uuid4()
    await ensure_tenant(settings.admin_url, other_tenant, "Other", "other-user")
    own = await add_document(infra, tenant_id, user_id, [0.9, 0.8, 0.7], title="own")
    deleted = await add_document(infra, tenant_id, user_id, [0.99], title="deleted")
    foreign = await add_document(infra, other_tenant, "other-user", [0.99], title="foreign")
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        assert await docs.delete_document(conn, deleted)
    unknown = uuid.uuid4()
    async with running(lambda s: retrieval_worker.serve(infra, s)):
        baseline = await retrieval.search(infra.bus, request(tenant_id, user_id, Scope(doc_ids=[own])))
        assert len(baseline.chunks) == 3
        for missing in (foreign, deleted, unknown):
            alone = await retrieval.search(infra.bus, request(tenant_id, user_id, Scope(doc_ids=[missing])))
            assert alone.chunks == []
            mixed = await retrieval.search(infra.bus, request(tenant_id, user_id, Scope(doc_ids=[own, missing])))
            assert [c.chunk_id for c in mixed.chunks] == [c.chunk_id for c in baseline.chunks]
            sample = await retrieval.sample(
                infra.bus, SampleRequest(tenant_id=tenant_id, user_id=user_id, doc_ids=[missing])
            )
            assert sample.chunks == []
        everything = await retrieval.search(infra.bus, request(tenant_id, user_id, Scope()))
        assert {c.document_id for c in everything.chunks} == {own}


async def test_adaptive_k_keeps_chunks_down_to_the_floor(infra, tenant, settings):
    tenant_id, user_id = tenant
    similarities = [0.9, 0.8, 0.7, 0.5, 0.3, 0.1]
    doc_id = await add_document(infra, tenant_id, user_id, similarities, title="graded")
    async with running(lambda s: retrieval_worker.serve(infra, s)):
        for scope in (Scope(doc_ids=[doc_id]), Scope()):
            reply = await retrieval.search(
                infra.bus, request(tenant_id, user_id, scope, min_similarity=0.6, per_doc_k=10, total_k=10)
            )
            assert [round(c.similarity, 3) for c in reply.chunks] == [0.9, 0.8, 0.7]
            everything = await retrieval.search(
                infra.bus, request(tenant_id, user_id, scope, min_similarity=-1.0, per_doc_k=10, total_k=10)
            )
            assert len(everything.chunks) == len(similarities)
            nothing = await retrieval.search(infra.bus, request(tenant_id, user_id, scope, min_similarity=0.95))
            assert nothing.chunks == []
        # Without min_similarity the embedding model's calibrated floor applies.
        floor = settings.similarity.min_similarity
        around = await add_document(infra, tenant_id, user_id, [floor + 0.05, floor - 0.05], title="around")
        reply = await retrieval.search(
            infra.bus,
            SearchRequest(
                tenant_id=tenant_id,
                user_id=user_id,
                query_embedding=query_vector().tolist(),
                scope=Scope(doc_ids=[around]),
            ),
        )
        assert [round(c.similarity, 3) for c in reply.chunks] == [round(floor + 0.05, 3)]


async def test_specific_documents_get_balanced_counts(infra, tenant):
    tenant_id, user_id = tenant
    # One document is far more similar than the others; balance still gives each its share.
    dominant = await add_document(infra, tenant_id, user_id, [0.95 - i * 0.001 for i in range(8)], title="dominant")
    others = [
        await add_document(infra, tenant_id, user_id, [0.5 - d * 0.05 - i * 0.01 for i in range(8)], title=f"o{d}")
        for d in range(3)
    ]
    ids = [dominant, *others]
    async with running(lambda s: retrieval_worker.serve(infra, s)):
        reply = await retrieval.search(
            infra.bus, request(tenant_id, user_id, Scope(doc_ids=ids), per_doc_k=3, total_k=15)
        )
        counts = {d: sum(c.document_id == d for c in reply.chunks) for d in ids}
        assert counts == {d: 3 for d in ids}
        # Within each document, its best chunks.
        for d in ids:
            mine = [c.similarity for c in reply.chunks if c.document_id == d]
            assert mine == sorted(mine, reverse=True)
        assert {c.ordinal for c in reply.chunks if c.document_id == dominant} == {0, 1, 2}

        capped = await retrieval.search(
            infra.bus, request(tenant_id, user_id, Scope(doc_ids=ids), per_doc_k=3, total_k=7)
        )
        assert len(capped.chunks) == 7
        assert max(sum(c.document_id == d for c in capped.chunks) for d in ids) <= 3
        assert [c.score for c in capped.chunks] == sorted((c.score for c in capped.chunks), reverse=True)


async def test_chunks_that_tie_rank_closest_by_meaning_then_in_document_order(infra, tenant):
    # The fused score ties often; ties came back in whatever order Postgres's plan gave them, which
    # moved a question's passages (and so its answer) from one run to the next over one database.
    tenant_id, user_id = tenant
    same = "Backups are kept for ninety days."
    texts = [same, "Backups are kept for ninety days in the vault.", same, same, "Backups.", same]
    similarities = [0.8, 0.8, 0.8, 0.8, 0.9, 0.8]
    doc_id = await add_document(infra, tenant_id, user_id, similarities, title="ties", texts=texts)
    # By meaning alone, chunk 4 is closest and the rest tie: document order. With the words as well,
    # chunks 1 and 3 tie on the fused score (third by meaning and fifth by words, or the reverse).
    expected = {False: [4, 0, 1, 2, 3, 5], True: [0, 2, 4, 1, 3, 5]}
    async with running(lambda s: retrieval_worker.serve(infra, s)):
        for hybrid, order in expected.items():
            fields = {"hybrid": hybrid, "query_text": "backups kept", "per_doc_k": 6, "total_k": 6}
            for _ in range(3):
                reply = await retrieval.search(
                    infra.bus, request(tenant_id, user_id, Scope(doc_ids=[doc_id]), **fields)
                )
                assert [c.ordinal for c in reply.chunks] == order, hybrid


@pytest.mark.parametrize(("chunk_count", "expected"), [(6, 6), (40, 10), (100, 18), (400, 30)])
async def test_sampling_takes_a_spread_share_of_each_document(infra, tenant, chunk_count, expected):
    tenant_id, user_id = tenant
    doc_id = await add_document(infra, tenant_id, user_id, [0.5] * chunk_count, title=f"long-{chunk_count}")
    async with running(lambda s: retrieval_worker.serve(infra, s)):
        reply = await retrieval.sample(infra.bus, SampleRequest(tenant_id=tenant_id, user_id=user_id, doc_ids=[doc_id]))
    ordinals = [c.ordinal for c in reply.chunks]
    assert len(ordinals) == expected
    assert ordinals == sorted(set(ordinals))
    if chunk_count >= 10 / 0.15:  # between the minimum of 10 and the maximum of 30: 15–20 %
        assert expected == 30 or 0.15 <= expected / chunk_count <= 0.20
    # Evenly spread: no gap much wider than the stride, and both ends of the document covered.
    stride = chunk_count / expected
    gaps = np.diff([-stride / 2, *ordinals, chunk_count - 1 + stride / 2])
    assert gaps.max() <= math.ceil(stride) + 1
    assert ordinals[0] < math.ceil(stride) and ordinals[-1] >= chunk_count - math.ceil(stride)


async def test_selective_filters_still_return_k_results(infra, tenant):
    """Filtered HNSW can starve: a scope or an RLS filter far from the query must still give k rows."""
    tenant_id, me = tenant
    colleague = f"colleague-{uuid.uuid4().hex[:6]}"
    # 2,000 chunks very close to the query that only the colleague may see...
    for d in range(20):
        await add_document(
            infra, tenant_id, colleague, [0.9 + (i % 50) / 1000 for i in range(100)], title=f"noise{d}", axis0=d * 100
        )
    # ...and my small document, far from the query, plus a scope that selects one document.
    target = await add_document(infra, tenant_id, me, [0.1 + i / 100 for i in range(12)], title="target", axis0=7)
    async with running(lambda s: retrieval_worker.serve(infra, s)):
        scoped = await retrieval.search(
            infra.bus, request(tenant_id, me, Scope(doc_ids=[target]), per_doc_k=10, total_k=10)
        )
        assert len(scoped.chunks) == 10 and {c.document_id for c in scoped.chunks} == {target}
        # Everything I may see: the HNSW candidates are all invisible to me (RLS), the iterative
        # scan must keep going until it has k of mine.
        everything = await retrieval.search(infra.bus, request(tenant_id, me, Scope(), total_k=10))
        assert len(everything.chunks) == 10 and {c.document_id for c in everything.chunks} == {target}
        assert [c.similarity for c in everything.chunks] == sorted(
            (c.similarity for c in everything.chunks), reverse=True
        )
        assert round(everything.chunks[0].similarity, 3) == 0.21


async def test_a_row_search_finds_only_chunks_with_rows_and_the_rest_of_their_table(infra, tenant):
    """`rows` keeps to chunks that hold a table row with a figure; `neighbours` adds the chunks of
    rows either side of each hit (a table that runs over several chunks), and never prose."""
    tenant_id, user_id = tenant
    texts = [
        "Net sales grew in every segment, led by Europe.",
        "Net sales by segment (in millions): Americas — 2024: 167,045 · 2023: 162,560.",
        "Net sales by segment (in millions): Europe — 2024: 101,328 · 2023: 94,294.",
        "Net sales by segment (in millions): Japan — 2024: 25,052 · 2023: 24,257.",
        "Our segments are managed by geography.",
    ]
    # The prose is the most similar chunk and the middle row the most similar row chunk.
    doc = await add_document(infra, tenant_id, user_id, [0.95, 0.3, 0.9, 0.2, 0.8], texts=texts, title="segments")
    async with running(lambda s: retrieval_worker.serve(infra, s)):
        rows = await retrieval.search(
            infra.bus, request(tenant_id, user_id, Scope(doc_ids=[doc]), per_doc_k=1, total_k=1, rows=True)
        )
        assert [c.ordinal for c in rows.chunks] == [2]
        table = await retrieval.search(
            infra.bus,
            request(tenant_id, user_id, Scope(doc_ids=[doc]), per_doc_k=1, total_k=1, rows=True, neighbours=True),
        )
        assert [c.ordinal for c in table.chunks] == [2, 1, 3]
        everything = await retrieval.search(
            infra.bus, request(tenant_id, user_id, Scope(doc_ids=[doc]), per_doc_k=1, total_k=1)
        )
        assert [c.ordinal for c in everything.chunks] == [0]
