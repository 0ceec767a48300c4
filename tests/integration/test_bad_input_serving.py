"""Bad input through one ingest worker on the real bus (issue 28's list): each file ends `failed`
with its precise reason and nothing stored, and the same worker then ingests a good document.
(Garbage, truncated, zero-page, 5,000-page and non-Office ZIP files are in
test_ingest_and_retrieval.py; the 10,000-row sheet and OCR's own findings in
tests/unit/test_document_pages.py.)"""

from __future__ import annotations

import pymupdf
import pytest

from services.ingest import worker as ingest_worker
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.helpers import ingest_finished, read_events, submit_file
from tests.unit.test_document_pages import SCANNED, blank_png, scanned_pdf, word_document

pytestmark = pytest.mark.integration


def encrypted_pdf() -> bytes:
    document = pymupdf.open()
    document.new_page().insert_text((72, 72), "secret")
    return document.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw", owner_pw="pw")


async def test_bad_files_end_with_their_reason_and_the_worker_keeps_serving(
    infra, tenant, embedder, tmp_path, monkeypatch
):
    tenant_id, user_id = tenant
    monkeypatch.setenv("PATH", "/nonexistent")  # no Tesseract: image-only pages cannot be read
    bad = {
        "locked.pdf": (encrypted_pdf(), "encrypted document: remove the password"),
        "scan.pdf": (scanned_pdf(SCANNED), "no extractable text: the pages are images and OCR is not available"),
        "pictures.docx": (
            word_document([], heading="", picture=blank_png()),
            "no extractable text: the pages are images and OCR is not available",
        ),
    }
    async with running(lambda s: ingest_worker.serve(infra, s)):
        for filename, (content, reason) in bad.items():
            path = tmp_path / filename
            path.write_bytes(content)
            cmd = await submit_file(infra, tenant_id, user_id, path, title=filename)
            events = await read_events(
                infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_finished, timeout=30
            )
            assert events[-1]["status"] == "failed" and reason in events[-1]["error"], (filename, events[-1])
            async with tenant_tx(infra.db, tenant_id, user_id) as conn:
                row = await docs.get_document(conn, cmd.document_id)
                stored = await docs.chunk_texts(conn, cmd.document_id)
            assert row["status"] == "failed" and reason in row["error"] and stored == []  # nothing half-written
        good = await submit_file(infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf", title="Good")
        events = await read_events(infra, infra.bus.subjects.evt_ingest(good.document_id), until=ingest_finished)
    assert events[-1]["status"] == "ready"
