"""The ingest worker: `pp.cmd.ingest` → pages → chunk → embed → store, with progress events.

Phase one ends at `ready`: the upload becomes pages (services/ingest/pages.py: type sniffed, a
PDF rendition of non-PDFs, OCR of pages without text), chunks, chunk vectors, and chunks plus
the `ready` status in one transaction, so a document is searchable exactly when it is complete
and a failure leaves nothing half-written (an earlier version keeps answering). Phase two, the
sentence vectors (and with PP_INGEST_READY_AT=words, the default, the chunk vectors too), follows
as `pp.cmd.complete_index` (services/ingest/completion.py).

A permanent problem with the file (unparseable, encrypted, too large) ends the document as
`failed` with the reason and acks the job; a transient one (database, bus) raises so the job
is redelivered. docs/ingest.md has the measurements behind this shape.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import uuid
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from faststream.nats import NatsRouter
from opentelemetry import trace

from services.ingest.chunker import chunk_pages
from services.ingest.completion import IndexCompleter, requeue
from services.ingest.ocr import tesseract_available
from services.ingest.pace import VectorPace
from services.ingest.pages import finished_pages, open_pages, read_textless_pages
from services.ingest.vectors import embed_sorted
from shared.bus.broker import serve_routers
from shared.bus.consumer import command_subscriber, commands_router
from shared.bus.publish import publish
from shared.contracts import CompleteIndexCommand, IngestCommand, IngestProgress
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from shared.documents.filetype import ParseError
from shared.health import with_health
from shared.runtime.service import Infra, run_service

log = logging.getLogger(__name__)
_tracer = trace.get_tracer(__name__)

INGEST_NAMESPACE = uuid.UUID("6d1c0d55-1c55-4c4c-9d0b-2f6f7d3b1a01")


@dataclass(frozen=True)
class Duplicate:
    """A bus job whose bytes the user already has: the document that holds them."""

    existing: dict[str, Any]


def duplicate_of(same_bytes: list[dict[str, Any]], cmd: IngestCommand) -> dict[str, Any] | None:
    """The document a bus job would duplicate, as the upload form decides: the same bytes under
    another title (a copy by mistake), or under the same title and version (the same document
    again); the same title with another version label is a deliberate new version."""
    if any(row["title"] == cmd.title and row["version"] != cmd.version for row in same_bytes):
        return None
    return next(iter(same_bytes), None)


def integrator_document_id(cmd: IngestCommand) -> uuid.UUID:
    """Stable id for a bus-submitted job without one, so redelivery maps to one document."""
    return cmd.document_id or uuid.uuid5(INGEST_NAMESPACE, f"{cmd.tenant_id}:{cmd.object_name}")


class IngestHandler:
    def __init__(self, infra: Infra, pace: VectorPace) -> None:
        self.infra = infra
        self.pace = pace

    async def progress(
        self,
        document_id: uuid.UUID,
        status: str,
        stage: str,
        done: int = 0,
        total: int = 0,
        error: str | None = None,
        eta_s: float | None = None,
    ) -> None:
        event = IngestProgress(
            document_id=document_id, status=status, stage=stage, done=done, total=total, error=error, eta_s=eta_s
        )
        await publish(self.infra.bus, self.infra.bus.subjects.evt_ingest(document_id), event)

    async def __call__(self, cmd: IngestCommand) -> None:
        store = await self.infra.bus.uploads()
        try:
            data = (await store.get(cmd.object_name)).data or b""
        except Exception as exc:
            if cmd.document_id is None:
                # No document row to fail yet: retry, then dead-letter with this reason.
                raise LookupError(f"object {cmd.object_name!r} is not in the uploads bucket") from exc
            await self.fail(cmd, cmd.document_id, f"uploaded object {cmd.object_name!r} not found")
            return
        document = await self.resolve_document(cmd, data)
        if isinstance(document, Duplicate):
            await self.report_duplicate(cmd, document.existing)
            return
        if document["status"] == "ready":
            await self.progress(document["id"], "ready", "done", document["chunk_count"], document["chunk_count"])
            settings = self.infra.settings
            if settings.ingest_ready_at == "words" or settings.ingest_sentence_vectors:
                await self.queue_completion(cmd, document["id"])  # in case phase two was never queued
            return
        await self.ingest(cmd, document, data)

    async def resolve_document(self, cmd: IngestCommand, data: bytes) -> dict[str, Any] | Duplicate:
        """The job's document row, created on its first delivery; or the document that already
        holds these bytes (jobs from the gateway never get here: it checked and made the row)."""
        document_id = integrator_document_id(cmd)
        sha256 = hashlib.sha256(data).hexdigest()
        async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
            existing = await docs.get_document(conn, document_id)
            if existing is not None:
                return existing
            held = None if cmd.keep_duplicate else duplicate_of(await docs.same_content(conn, sha256, cmd.user_id), cmd)
            if held is not None:
                return Duplicate(held)
            set_id = (
                await docs.get_or_create_set(conn, cmd.tenant_id, cmd.user_id, cmd.set_name) if cmd.set_name else None
            )
            row, _ = await docs.insert_document(
                conn,
                {
                    "id": document_id,
                    "tenant_id": cmd.tenant_id,
                    "user_id": cmd.user_id,
                    "title": cmd.title,
                    "version": cmd.version,
                    "doc_type": cmd.doc_type,
                    "set_id": set_id,
                    "source_type": "bus",
                    "filename": cmd.filename,
                    "mime": None,
                    "sha256": sha256,
                    "byte_size": len(data),
                    "object_key": cmd.object_name,
                    "visibility": cmd.visibility,
                },
            )
            # A failed document of the same bytes, title and version is ingested again, as before.
            return row if row["id"] == document_id or row["status"] == "failed" else Duplicate(row)

    async def report_duplicate(self, cmd: IngestCommand, existing: dict[str, Any]) -> None:
        """One `duplicate` event on the job's own subject; nothing is stored for it."""
        reason = (
            f"these bytes are already in the library as {docs.display_name(existing)} (document {existing['id']},"
            f" {existing['status']}); publish the job again with keep_duplicate=true to keep a second copy"
        )
        log.info("ingest job for %s is a duplicate of document %s", cmd.object_name, existing["id"])
        event = IngestProgress(
            document_id=integrator_document_id(cmd),
            status="duplicate",
            stage="done",
            error=reason,
            existing_document_id=existing["id"],
        )
        await publish(self.infra.bus, self.infra.bus.subjects.evt_ingest(event.document_id), event)

    async def dead_letter(self, raw: bytes, reason: str) -> None:
        """A job that failed on every attempt (embedder gone, a bug): its document ends `failed`
        with the reason instead of staying `processing`; nothing of it was stored (chunks and
        `ready` commit together), so an earlier version keeps answering. A dead completion job
        (the vectors of a ready document) is queued again, a bounded number of rounds
        (completion.py, `requeue`)."""
        try:
            cmd = IngestCommand.model_validate_json(raw)
        except ValueError:
            await self.completion_dead_letter(raw, reason)
            return
        document_id = integrator_document_id(cmd)
        async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
            document = await docs.get_document(conn, document_id)
        if document is not None and document["status"] != "ready":
            await self.fail(cmd, document_id, f"ingest failed after retries: {reason}")

    async def completion_dead_letter(self, raw: bytes, reason: str) -> None:
        try:
            follow_up = CompleteIndexCommand.model_validate_json(raw)
        except ValueError:
            return  # neither command: the dead letter itself is all there is to keep
        await requeue(self.infra, follow_up, reason)

    async def fail(self, cmd: IngestCommand, document_id: uuid.UUID, reason: str) -> None:
        async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
            await docs.set_status(conn, document_id, "failed", error=reason)
        await self.progress(document_id, "failed", "done", error=reason)

    async def ingest(self, cmd: IngestCommand, document: dict[str, Any], data: bytes) -> None:
        settings = self.infra.settings
        doc_id = document["id"]
        if len(data) > settings.max_upload_bytes:
            await self.fail(cmd, doc_id, f"file too large: {len(data)} bytes (limit {settings.max_upload_bytes})")
            return
        async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
            await docs.set_status(conn, doc_id, "processing")
        await self.progress(doc_id, "processing", "parsing")
        try:
            with _tracer.start_as_current_span("ingest parse"):
                opened = await asyncio.to_thread(open_pages, data, document["filename"], max_pages=settings.max_pages)
            if opened.textless and tesseract_available():
                to_read = min(len(opened.textless), settings.ocr_max_pages)
                await self.progress(doc_id, "processing", "ocr", 0, to_read)
                with _tracer.start_as_current_span("ingest ocr", attributes={"policypal.pages": to_read}):
                    opened = await asyncio.to_thread(
                        read_textless_pages, opened, settings.ocr_languages, settings.ocr_dpi, settings.ocr_max_pages
                    )
            parsed = finished_pages(opened)
        except ParseError as exc:
            await self.fail(cmd, doc_id, str(exc))
            return
        await self.progress(doc_id, "processing", "chunking", 0, parsed.page_count)
        with _tracer.start_as_current_span("ingest chunk"):
            chunks = chunk_pages(parsed.pages, settings.chunk_size, settings.chunk_overlap)
        words_first = settings.ingest_ready_at == "words"
        vectors = None  # words first: stored without vectors, added by the completion phase
        if not words_first:
            with _tracer.start_as_current_span("ingest embed", attributes={"policypal.texts": len(chunks)}):
                vectors = await self.chunk_vectors(cmd, document, [c.text for c in chunks])
        await self.progress(doc_id, "processing", "storing", 0, len(chunks))
        rendition_key = await self.store_rendition(document, opened.rendition)
        with _tracer.start_as_current_span("ingest store", attributes={"policypal.chunks": len(chunks)}):
            async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
                await docs.set_status(
                    conn,
                    doc_id,
                    "processing",
                    page_count=parsed.page_count,
                    mime=opened.mime,
                    rendition_key=rendition_key,
                    warning=opened.warning,
                )
                await docs.replace_chunks(conn, document, chunks, vectors)
                pending = await docs.pending_vector_count(conn) if words_first else 0
        log.info("document %s ready: %d pages, %d chunks", doc_id, parsed.page_count, len(chunks))
        if not (words_first or settings.ingest_sentence_vectors):
            await self.progress(doc_id, "ready", "done", len(chunks), len(chunks))
            return
        # Searchable now; the rest of the index follows as a command of its own (completion.py).
        if words_first:
            await self.progress(doc_id, "ready", "embedding", 0, len(chunks), eta_s=self.pace.eta_s(pending))
        else:
            await self.progress(doc_id, "ready", "sentences", 0, len(chunks))
        await self.queue_completion(cmd, doc_id)

    async def queue_completion(self, cmd: IngestCommand, doc_id: uuid.UUID) -> None:
        follow_up = CompleteIndexCommand(tenant_id=cmd.tenant_id, user_id=cmd.user_id, document_id=doc_id)
        await publish(
            self.infra.bus, self.infra.bus.subjects.cmd_complete_index, follow_up, msg_id=f"complete:{doc_id}"
        )

    async def chunk_vectors(self, cmd: IngestCommand, document: dict[str, Any], texts: list[str]) -> np.ndarray:
        """Vectors of the chunk texts: copied from the owner's earlier versions of this document
        where a chunk is unchanged, computed (each distinct text once) for the rest."""
        settings = self.infra.settings
        async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
            known = await docs.earlier_version_vectors(conn, document, texts)
        missing = [t for t in dict.fromkeys(texts) if t not in known]

        async def step(done: int, total: int) -> None:
            await self.progress(document["id"], "processing", "embedding", done, total)

        computed = await embed_sorted(
            missing,
            dim=settings.embedding_dim,
            slice_size=max(1, settings.embedding_batch * 4),
            wait_s=settings.embed_wait_s,
            progress=step,
        )
        rows = known | dict(zip(missing, computed, strict=True))
        if not texts:
            return np.zeros((0, settings.embedding_dim), np.float32)
        return np.stack([rows[t] for t in texts])

    async def store_rendition(self, document: dict[str, Any], rendition: bytes | None) -> str | None:
        """The PDF made from a non-PDF upload, beside the original in the uploads bucket."""
        if rendition is None:
            return None
        key = f"{document['object_key']}.pages.pdf"
        store = await self.infra.bus.uploads()
        await store.put(key, rendition)
        return key


def ingest_router(infra: Infra) -> NatsRouter:
    pace = VectorPace()  # one per worker: the second phase measures it, both phases report it
    handle = IngestHandler(infra, pace)
    router = commands_router(
        infra.bus, infra.settings, kind="ingest", on_dead_letter=handle.dead_letter, database=infra.maybe_db
    )
    subscriber = partial(command_subscriber, router, infra.bus, infra.settings)

    @subscriber(
        subject=infra.bus.subjects.cmd_ingest,
        durable="ingest",
        model=IngestCommand,
        description="Ingest an object of the uploads bucket: parse, chunk, embed and store it.",
        # Two jobs in flight: one parses and chunks while the other holds the embedder.
        concurrency=2,
    )
    async def on_ingest(cmd: IngestCommand) -> None:
        await handle(cmd)

    complete_index = IndexCompleter(infra, pace)

    @subscriber(
        subject=infra.bus.subjects.cmd_complete_index,
        durable="complete-index",
        model=CompleteIndexCommand,
        description="Second ingest phase: complete the vectors of a document that is already ready.",
        # One at a time: this phase runs at the embedder's background priority anyway.
        concurrency=1,
    )
    async def on_complete_index(cmd: CompleteIndexCommand) -> None:
        await complete_index(cmd)

    return router


async def serve(infra: Infra, stop: asyncio.Event) -> None:
    await serve_routers(infra.bus, stop, ingest_router(infra))


def main() -> None:
    asyncio.run(run_service("ingest", with_health(serve, durables=["ingest", "complete-index"])))
