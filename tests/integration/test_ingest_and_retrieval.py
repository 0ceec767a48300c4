"""Ingest over the public bus contract and search over NATS request-reply, on real PDFs."""

from __future__ import annotations

import io
import uuid
import zipfile

import pymupdf
import pytest

from services.ingest import worker as ingest_worker
from services.retrieval import search
from services.retrieval import worker as retrieval_worker
from shared.bus.publish import publish
from shared.contracts import ChunkHit, SampleRequest, Scope, SearchRequest
from shared.db import documents as docs
from shared.db.conn import Conn
from shared.db.pool import tenant_tx
from shared.retrieval import client as retrieval
from shared.runtime.service import Infra
from shared.text.search_query import retrieval_query
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.helpers import ingest_complete, ingest_finished, read_events, submit_file

pytestmark = pytest.mark.integration

ZERO_PAGE_PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
    b"trailer<</Root 1 0 R>>\n%%EOF\n"
)


def blank_pdf(pages: int) -> bytes:
    doc = pymupdf.open()
    for _ in range(pages):
        doc.new_page()
    return doc.tobytes()


FILLER = "Commitments include leases of fulfillment centres, data centres and offices around the world."


def zip_of_text() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("notes.txt", "a plain archive, not an Office file")
    return out.getvalue()


async def test_pdf_becomes_searchable_with_pages_and_balanced_results(infra, tenant, embedder):
    tenant_id, user_id = tenant
    async with running(lambda s: ingest_worker.serve(infra, s), lambda s: retrieval_worker.serve(infra, s)):
        policy = await submit_file(
            infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf", doc_type="company_policy"
        )
        regulation = await submit_file(infra, tenant_id, user_id, EXAMPLES / "storage-limitation-regulation.pdf")
        for cmd in (policy, regulation):
            events = await read_events(infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_complete)
            stages = [e["stage"] for e in events]
            assert stages[0] == "parsing" and stages[-1] == "done" and events[-1]["status"] == "ready"
            assert {"chunking", "embedding", "storing"} <= set(stages)
            # Searchable by words first (the default), then the chunk vectors and the sentence vectors
            # (the second phase) while already ready.
            first_ready = next(i for i, e in enumerate(events) if e["status"] == "ready")
            assert events[first_ready]["stage"] == "embedding"
            assert all(e["status"] == "processing" for e in events[:first_ready])
            assert "sentences" in [e["stage"] for e in events[first_ready:]]
            async with tenant_tx(infra.db, tenant_id, user_id) as conn:
                stored = await (
                    await conn.execute(
                        "SELECT count(*) AS n FROM sentence_vectors WHERE document_id = %s", (cmd.document_id,)
                    )
                ).fetchone()
            assert stored["n"] > 0

        result = await retrieval.search(
            infra.bus,
            SearchRequest(
                tenant_id=tenant_id,
                user_id=user_id,
                query_text="How quickly must a data breach be notified?",
                scope=Scope(doc_ids=[policy.document_id, regulation.document_id]),
                per_doc_k=2,
                total_k=15,
            ),
        )
        assert {c.document_id for c in result.chunks} == {policy.document_id, regulation.document_id}
        assert all(
            sum(c.document_id == d for c in result.chunks) <= 2 for d in (policy.document_id, regulation.document_id)
        )
        assert result.chunks[0].similarity >= result.chunks[-1].similarity
        assert any("72 hours" in c.text or "seventy-two hours" in c.text for c in result.chunks)
        breach = next(c for c in result.chunks if "seventy-two" in c.text)
        assert breach.page == 2 and breach.section and "breach" in breach.section.lower()

        sample = await retrieval.sample(
            infra.bus, SampleRequest(tenant_id=tenant_id, user_id=user_id, doc_ids=[policy.document_id])
        )
        async with tenant_tx(infra.db, tenant_id, user_id) as conn:
            row = await docs.get_document(conn, policy.document_id)
        assert len(sample.chunks) == row["chunk_count"]  # small document: all of it, in order
        assert [c.ordinal for c in sample.chunks] == sorted(c.ordinal for c in sample.chunks)

        # Another tenant asking for these ids gets nothing, exactly like for unknown ids.
        stranger = await retrieval.search(
            infra.bus,
            SearchRequest(
                tenant_id=uuid.uuid4(),
                user_id="stranger",
                query_text="breach",
                scope=Scope(doc_ids=[policy.document_id]),
                min_similarity=-1.0,
            ),
        )
        assert stranger.chunks == []


async def test_redelivered_ingest_job_does_not_duplicate_chunks(infra, tenant, embedder):
    tenant_id, user_id = tenant
    async with running(lambda s: ingest_worker.serve(infra, s)):
        cmd = await submit_file(infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf")
        await read_events(infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_finished)
        # The same job again (a redelivery or an integrator retry with a new message id).
        await publish(infra.bus, infra.bus.subjects.cmd_ingest, cmd, msg_id=f"retry-{uuid.uuid4()}")
        events = await read_events(
            infra,
            infra.bus.subjects.evt_ingest(cmd.document_id),
            until=lambda e: ingest_finished(e) and e["_seq"] > 0 and e["stage"] == "done",
            timeout=30,
        )
        async with tenant_tx(infra.db, tenant_id, user_id) as conn:
            count = await (
                await conn.execute("SELECT count(*) AS n FROM chunks WHERE document_id = %s", (cmd.document_id,))
            ).fetchone()
            row = await docs.get_document(conn, cmd.document_id)
    assert events[-1]["status"] == "ready"
    assert count["n"] == row["chunk_count"] > 0


@pytest.mark.parametrize(
    ("filename", "content", "reason"),
    [
        ("garbage.pdf", b"this is not a pdf at all, just some text pretending", "not a PDF"),
        ("random.pdf", bytes(range(256)) * 40, "not a PDF"),
        ("truncated.pdf", b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog", "corrupt"),
        ("zero.pdf", ZERO_PAGE_PDF, "no readable pages"),
        ("huge.pdf", blank_pdf(5000), "too many pages: 5000"),
        ("archive.docx", zip_of_text(), "a ZIP archive that is not a Word"),
    ],
)
async def test_bad_files_end_failed_with_a_reason(infra, tenant, tmp_path, filename, content, reason):
    tenant_id, user_id = tenant
    path = tmp_path / filename
    path.write_bytes(content)
    async with running(lambda s: ingest_worker.serve(infra, s)):
        cmd = await submit_file(infra, tenant_id, user_id, path)
        events = await read_events(infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_finished)
    assert events[-1]["status"] == "failed"
    assert reason.lower() in events[-1]["error"].lower()
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        row = await docs.get_document(conn, cmd.document_id)
    assert row["status"] == "failed" and reason.lower() in row["error"].lower() and row["chunk_count"] == 0


async def test_invalid_search_request_gets_an_error_reply(infra):
    async with running(lambda s: retrieval_worker.serve(infra, s)):
        msg = await infra.bus.nc.request(infra.bus.subjects.rpc_search, b'{"tenant_id": "nope"}', timeout=10)
    assert b"invalid_request" in msg.data and b"tenant_id" in msg.data


async def by_words(conn: Conn, question: str, document_id: uuid.UUID) -> list[ChunkHit]:
    """The top 3 chunks of one document for the question by full-text ranking alone (no embedding)."""
    return await search.search_scoped(
        conn, None, question, [document_id], per_doc_k=3, total_k=3, floor=0.2, hybrid=False
    )


async def test_hybrid_and_keyword_only_search(infra, tenant, embedder):
    tenant_id, user_id = tenant
    async with running(lambda s: ingest_worker.serve(infra, s), lambda s: retrieval_worker.serve(infra, s)):
        cmd = await submit_file(infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf")
        await read_events(infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_finished)
        for scope in (Scope(doc_ids=[cmd.document_id]), Scope()):
            hybrid = await retrieval.search(
                infra.bus,
                SearchRequest(
                    tenant_id=tenant_id, user_id=user_id, query_text="cross-cut shredder", scope=scope, hybrid=True
                ),
            )
            assert hybrid.mode == "hybrid" and "shredder" in hybrid.chunks[0].text
            assert hybrid.chunks[0].score > 1 / 61  # ranked by both lists
            assert 0 < hybrid.chunks[0].similarity < 1  # still the cosine similarity
            vector = await retrieval.search(
                infra.bus,
                SearchRequest(
                    tenant_id=tenant_id, user_id=user_id, query_text="cross-cut shredder", scope=scope, hybrid=False
                ),
            )
            assert vector.mode == "vector"

    # Without an embedding (the embedder failed), full-text ranking answers on its own.
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        scoped = await by_words(conn, "How are paper records shredded?", cmd.document_id)
        everywhere = await search.search_all(conn, None, "shredder", total_k=3, floor=0.2, hybrid=False)
        nothing = await search.search_all(conn, None, "the and of", total_k=3, floor=0.2, hybrid=False)
    assert "shredded" in scoped[0].text and scoped[0].similarity == 0.0
    assert "shredder" in everywhere[0].text and nothing == []


async def test_ready_at_vectors_stores_every_chunk_vector_before_ready(infra, tenant, embedder):
    tenant_id, user_id = tenant
    settings = infra.settings.model_copy(update={"ingest_ready_at": "vectors"})
    vectors = Infra(settings=settings, bus=infra.bus, db=infra.db)
    async with running(lambda s: ingest_worker.serve(vectors, s)):
        cmd = await submit_file(infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf")
        subject = infra.bus.subjects.evt_ingest(cmd.document_id)
        ready = (await read_events(infra, subject, until=ingest_finished))[-1]
        assert ready["status"] == "ready" and ready["stage"] == "sentences"  # only the sentence vectors follow
        async with tenant_tx(infra.db, tenant_id, user_id) as conn:
            assert await docs.chunks_without_vectors(conn, cmd.document_id) == []
        events = await read_events(infra, subject, until=ingest_complete)
        assert "embedding" not in [e["stage"] for e in events[events.index(ready) :]]


async def test_chunks_waiting_for_vectors_rank_by_meaning_with_question_time_vectors(infra, tenant, embedder):
    """The window of words-first ingest, made exact: a complete document's chunk vectors removed
    (as if the second phase had not run yet). The default vector search still finds its passage,
    with the same cosine as from the stored vector; with no question-time candidates it cannot."""
    tenant_id, user_id = tenant
    question = "How long are job applicant records kept?"

    def request(**scope: object) -> SearchRequest:
        return SearchRequest(
            tenant_id=tenant_id, user_id=user_id, query_text=question, total_k=5, hybrid=False, **scope
        )

    async with running(lambda s: ingest_worker.serve(infra, s), lambda s: retrieval_worker.serve(infra, s)):
        cmd = await submit_file(infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf")
        await read_events(infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_complete)
        scoped = Scope(doc_ids=[cmd.document_id])
        stored = await retrieval.search(infra.bus, request(scope=scoped))
        async with tenant_tx(infra.db, tenant_id, user_id) as conn:
            await conn.execute("UPDATE chunks SET embedding = NULL WHERE document_id = %s", (cmd.document_id,))
            row = await docs.get_document(conn, cmd.document_id)
        assert row["status"] == "ready" and row["vectors_pending"] == row["chunk_count"]
        for found in (
            await retrieval.search(infra.bus, request(scope=scoped)),
            await retrieval.search(infra.bus, request()),
        ):
            assert found.mode == "vector" and found.chunks
            assert found.chunks[0].chunk_id == stored.chunks[0].chunk_id and "applicant" in found.chunks[0].text.lower()
            assert found.chunks[0].similarity == pytest.approx(stored.chunks[0].similarity, abs=1e-4)
    words_only = Infra(
        settings=infra.settings.model_copy(update={"search_unembedded_candidates": 0}), bus=infra.bus, db=infra.db
    )
    async with running(lambda s: retrieval_worker.serve(words_only, s)):
        assert (await retrieval.search(infra.bus, request(scope=scoped))).chunks == []


async def test_full_text_ranks_a_scope_by_the_terms_that_tell_its_chunks_apart(infra, tenant, tmp_path):
    """A long filing prints its name and the period on every page and in every row's headers; the
    line item asked about is on one page. BM25 over the tagged document weighs the rare term, where
    ts_rank_cd counted every repetition of the common ones (services/retrieval/search.py)."""
    tenant_id, user_id = tenant
    doc = pymupdf.open()
    for note in range(11):
        line = "Amazon item {}.{} for the quarter: Amazon, March 31, 2023 and March 31, 2023."
        lines = [line.format(note, i) for i in range(16)]
        page = doc.new_page()
        page.insert_textbox(page.rect + (50, 50, -50, -50), "\n".join(lines), fontsize=10)
    page = doc.new_page()
    debt = "Long-term debt stood at 67,084 at the period end, after the notes issued in the year were repaid in part."
    page.insert_textbox(page.rect + (50, 50, -50, -50), "\n".join([debt] + [FILLER] * 8), fontsize=10)
    path = tmp_path / "filing.pdf"
    doc.save(path)
    async with running(lambda s: ingest_worker.serve(infra, s)):
        cmd = await submit_file(infra, tenant_id, user_id, path)
        await read_events(infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_finished)
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        hits = await by_words(conn, "How much long-term debt did Amazon carry as of March 31, 2023?", cmd.document_id)
    assert "Long-term debt" in hits[0].text, [(h.page, h.text[:60]) for h in hits]
    # The common terms still make a chunk a full-text match: every chunk of the scope took part.
    assert len(hits) == 3


async def test_a_statement_named_brings_its_own_pages_rows_among_pages_that_only_mention_it(infra, tenant, tmp_path):
    """An annual report names its statements on many pages (contents, the index to the financial
    statements, the auditor's opinion); the statement's row chunks hold the line item, not the title.
    A question naming the statement gets the best chunks of the page that titles it among its
    passages (services/retrieval/statement_pages.py), even where the pages that only mention the
    statement outrank them."""
    tenant_id, user_id = tenant
    doc = pymupdf.open()
    mention = (
        "We have audited the consolidated statements of cash flows, the consolidated balance sheets and the "
        "consolidated statements of operations; cash flows from operating activities are presented fairly."
    )
    index = "\n".join(
        ["Consolidated Statements of Operations 29", "Consolidated Balance Sheets 31", "Statements of Cash Flows 33"]
    )
    for text in [index, *[mention] * 5]:
        page = doc.new_page()
        page.insert_textbox(page.rect + (50, 50, -50, -50), "\n".join([text] * 6), fontsize=10)
    page = doc.new_page()
    rows = [f"Item {i} of the year {1000 + i:,} {1100 + i:,} {1200 + i:,}" for i in range(60)]
    rows[45] = "Cash generated by operating activities 118,254 110,543 122,151"
    page.insert_textbox(pymupdf.Rect(50, 30, 550, 50), "CONSOLIDATED STATEMENTS OF CASH FLOWS", fontsize=10)
    page.insert_textbox(pymupdf.Rect(50, 80, 550, 800), "\n".join(rows), fontsize=8)
    path = tmp_path / "annual report.pdf"
    doc.save(path)
    async with running(lambda s: ingest_worker.serve(infra, s)):
        cmd = await submit_file(infra, tenant_id, user_id, path)
        await read_events(infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_finished)
    question = retrieval_query(
        "Relying on the cash flow statement, how much cash was generated by operating activities?"
    )
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        hits = await search.search_scoped(
            conn, None, question, [cmd.document_id], per_doc_k=6, total_k=6, floor=0.2, hybrid=False
        )
    # The words alone rank the pages that mention the statement first; half the passages are the
    # statement page's best chunks, the row asked among them.
    assert all(h.page < 7 for h in hits[:3]), [(h.page, h.text[:60]) for h in hits]
    assert any("118,254" in h.text for h in hits[3:]), [(h.page, h.text[:60]) for h in hits]
    # Each hit says which of its pages title the statement (a chunk may run onto it), for the answer
    # to prefer their rows.
    assert [h.statement_pages for h in hits] == [[7] if h.page + len(h.page_breaks) >= 7 else [] for h in hits]
    assert hits[-1].statement_pages == [7]
