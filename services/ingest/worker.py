"""The ingest worker: `pp.cmd.ingest` → parse → chunk → embed → store, with progress events.

A permanent problem with the file (unparseable, encrypted, too large) ends the document as
`failed` with the reason and acks the job; a transient one (database, bus) raises so the job
is redelivered. Chunks and the `ready` status are written in one transaction.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
import uuid
from typing import Any

import numpy as np
from faststream.nats import NatsRouter
from faststream.nats.annotations import NatsMessage
from opentelemetry import trace

from services.ingest.chunker import Chunk, chunk_pages
from services.ingest.parse import parse_document
from shared.bus.broker import serve_routers
from shared.bus.consumer import Delivery, command_subscriber, commands_router
from shared.bus.publish import publish
from shared.contracts import IngestCommand, IngestProgress
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from shared.db.sentences import replace_sentence_vectors
from shared.documents.filetype import ParseError
from shared.embeddings.client import EmbeddingUnavailable
from shared.embeddings.provider import embed_async
from shared.health import with_health
from shared.runtime.service import Infra, run_service
from shared.text.sentences import split_sentences

log = logging.getLogger(__name__)
_tracer = trace.get_tracer(__name__)

INGEST_NAMESPACE = uuid.UUID("6d1c0d55-1c55-4c4c-9d0b-2f6f7d3b1a01")


def integrator_document_id(cmd: IngestCommand) -> uuid.UUID:
    """Stable id for a bus-submitted job without one, so redelivery maps to one document."""
    return cmd.document_id or uuid.uuid5(INGEST_NAMESPACE, f"{cmd.tenant_id}:{cmd.object_name}")


def document_sentences(chunks: list[Chunk]) -> list[str]:
    """The distinct sentences the offline engine will rank when these chunks are retrieved,
    split exactly as it splits them, so their vectors can be stored once now."""
    return list(dict.fromkeys(s for chunk in chunks for s in split_sentences(chunk.text)))


class IngestHandler:
    def __init__(self, infra: Infra) -> None:
        self.infra = infra

    async def progress(
        self, document_id: uuid.UUID, status: str, stage: str, done: int = 0, total: int = 0, error: str | None = None
    ) -> None:
        event = IngestProgress(document_id=document_id, status=status, stage=stage, done=done, total=total, error=error)
        await publish(self.infra.bus, self.infra.bus.subjects.evt_ingest(document_id), event)

    async def __call__(self, cmd: IngestCommand, delivery: Delivery) -> None:
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
        if document["status"] == "ready":
            await self.progress(document["id"], "ready", "done", document["chunk_count"], document["chunk_count"])
            return
        await self.ingest(cmd, document, data)

    async def resolve_document(self, cmd: IngestCommand, data: bytes) -> dict[str, Any]:
        document_id = integrator_document_id(cmd)
        async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
            existing = await docs.get_document(conn, document_id)
            if existing is not None:
                return existing
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
                    "sha256": hashlib.sha256(data).hexdigest(),
                    "byte_size": len(data),
                    "object_key": cmd.object_name,
                    "visibility": cmd.visibility,
                },
            )
            return row

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
                parsed = await asyncio.to_thread(
                    parse_document, data, document["filename"], max_pages=settings.max_pages
                )
        except ParseError as exc:
            await self.fail(cmd, doc_id, str(exc))
            return
        await self.progress(doc_id, "processing", "chunking", 0, parsed.page_count)
        with _tracer.start_as_current_span("ingest chunk"):
            chunks = chunk_pages(parsed.pages, settings.chunk_size, settings.chunk_overlap)
            sentences = document_sentences(chunks) if settings.ingest_sentence_vectors else []
        with _tracer.start_as_current_span(
            "ingest embed", attributes={"policypal.texts": len(chunks) + len(sentences)}
        ):
            vectors = await self.embed(doc_id, [c.text for c in chunks] + sentences)
        await self.progress(doc_id, "processing", "storing", 0, len(chunks))
        with _tracer.start_as_current_span("ingest store", attributes={"policypal.chunks": len(chunks)}):
            async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
                await docs.set_status(conn, doc_id, "processing", page_count=parsed.page_count, mime=parsed.mime)
                await replace_sentence_vectors(
                    conn, document, settings.embedding_model, sentences, vectors[len(chunks) :]
                )
                await docs.replace_chunks(conn, document, chunks, vectors[: len(chunks)])
        await self.progress(doc_id, "ready", "done", len(chunks), len(chunks))
        log.info("document %s ready: %d pages, %d chunks", doc_id, parsed.page_count, len(chunks))

    async def embed(self, doc_id: uuid.UUID, texts: list[str]) -> np.ndarray:
        batch = max(1, self.infra.settings.embedding_batch * 4)
        parts: list[np.ndarray] = []
        for start in range(0, len(texts), batch):
            await self.progress(doc_id, "processing", "embedding", start, len(texts))
            parts.append(await self.embed_waiting(texts[start : start + batch]))
        return np.concatenate(parts) if parts else np.zeros((0, self.infra.settings.embedding_dim), np.float32)

    async def embed_waiting(self, texts: list[str]) -> np.ndarray:
        """Embed, waiting out an embedding service that is down or restarting (the consumer keeps
        the job alive meanwhile); only after PP_EMBED_WAIT_S does the job go back to the queue."""
        deadline = time.monotonic() + self.infra.settings.embed_wait_s
        delay = 0.5
        while True:
            try:
                return await embed_async(texts, stored=False, bulk=True)
            except EmbeddingUnavailable as exc:
                if time.monotonic() + delay > deadline:
                    raise
                log.warning("%s; ingest retries in %.1fs", exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)


def ingest_router(infra: Infra) -> NatsRouter:
    router = commands_router(infra.bus, infra.settings, kind="ingest", database=infra.db)
    handle = IngestHandler(infra)

    @command_subscriber(
        router,
        infra.bus,
        infra.settings,
        subject=infra.bus.subjects.cmd_ingest,
        durable="ingest",
        model=IngestCommand,
        description="Ingest an object of the uploads bucket: parse, chunk, embed and store it.",
        # Two jobs in flight: one parses and chunks while the other holds the embedder.
        concurrency=2,
    )
    async def on_ingest(cmd: IngestCommand, msg: NatsMessage) -> None:
        await handle(cmd, Delivery.of(msg, infra.settings.max_deliver))

    return router


async def serve(infra: Infra, stop: asyncio.Event) -> None:
    await serve_routers(infra.settings, "ingest", stop, ingest_router(infra))


def main() -> None:
    asyncio.run(run_service("ingest", with_health(serve, durables=["ingest"])))
