"""The second phase of ingest: completing the index of a document that is already `ready`.

1. Chunk vectors still missing (with PP_INGEST_READY_AT=words, the default, where a document
   becomes searchable by its words as soon as its chunks are stored): computed and written slice
   by slice, so meaning search covers more of the document as it goes; each slice's pace feeds
   the "meaning search ready in ~N s" estimate of the progress events (pace.py).
2. Sentence vectors: the offline engine ranks the sentences of retrieved chunks at every
   question; their vectors are stored once per document so a turn does not compute them
   (docs/architecture.md §6). Sentences already stored for any document the owner can read (the
   same boilerplate across filings, an unchanged paragraph of a new version) are copied, not
   computed again. Until they are stored, the embedding service computes a turn's missing
   sentence vectors itself, so answers are the same, only slower.

It runs from a command of its own (`pp.cmd.complete_index`), so it never holds one of the ingest
job's slots, at the embedder's background priority, behind every document still on its way to
`ready`. A redelivered command recomputes nothing that was stored: each slice of vectors commits
whole, so a failed round leaves stored vectors and waiting chunks, never a half-written vector.
A command that dead-letters (every delivery failed) is queued again (`requeue`), at most
PP_VECTORS_RETRIES times, and the document says so (`vectors_state`, docs/ingest.md).
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

import numpy as np
from opentelemetry import trace

from services.ingest.pace import VectorPace, clock
from services.ingest.vectors import embed_sorted
from shared.bus.publish import publish
from shared.contracts import CompleteIndexCommand, IngestProgress
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from shared.db.sentences import replace_sentence_vectors, stored_vectors, text_key
from shared.runtime.service import Infra
from shared.text.sentences import split_sentences

log = logging.getLogger(__name__)
_tracer = trace.get_tracer(__name__)


def document_sentences(chunk_texts: list[str]) -> list[str]:
    """The distinct sentences the offline engine will rank when these chunks are retrieved,
    split exactly as it splits them, so their vectors can be stored once now."""
    return list(dict.fromkeys(s for text in chunk_texts for s in split_sentences(text)))


class IndexCompleter:
    def __init__(self, infra: Infra, pace: VectorPace) -> None:
        self.infra = infra
        self.pace = pace

    async def progress(
        self, document_id: uuid.UUID, stage: str, done: int = 0, total: int = 0, eta_s: float | None = None
    ) -> None:
        event = IngestProgress(
            document_id=document_id, status="ready", stage=stage, done=done, total=total, eta_s=eta_s
        )
        await publish(self.infra.bus, self.infra.bus.subjects.evt_ingest(document_id), event)

    async def __call__(self, cmd: CompleteIndexCommand) -> None:
        async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
            document = await docs.get_document(conn, cmd.document_id)
        if document is None or document["status"] != "ready":
            return  # deleted meanwhile, or being ingested again: nothing of this phase applies
        await self.chunk_vectors(cmd, document)
        sentences = await self.sentence_vectors(cmd, document) if self.infra.settings.ingest_sentence_vectors else 0
        async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
            await docs.clear_vectors_failure(conn, cmd.document_id)
        await self.progress(cmd.document_id, "done", sentences, sentences)

    async def chunk_vectors(self, cmd: CompleteIndexCommand, document: dict[str, Any]) -> None:
        """The missing chunk vectors: copied from the owner's earlier versions of the document
        where a chunk is unchanged (one statement), computed slice by slice for the rest. Traced as
        "ingest embed", the step the first phase skipped, in the ingest job's trace."""
        with _tracer.start_as_current_span("ingest embed") as span:
            span.set_attribute("policypal.texts", await self._embed_missing(cmd, document))

    async def _embed_missing(self, cmd: CompleteIndexCommand, document: dict[str, Any]) -> int:
        settings = self.infra.settings
        async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
            waiting = await docs.chunks_without_vectors(conn, cmd.document_id)
            known = await docs.earlier_version_vectors(conn, document, [text for _, text in waiting])
            copied = [(chunk_id, text) for chunk_id, text in waiting if text in known]
            if copied:
                await docs.set_chunk_vectors(
                    conn, [chunk_id for chunk_id, _ in copied], np.stack([known[text] for _, text in copied])
                )
        missing = [(chunk_id, text) for chunk_id, text in waiting if text not in known]
        slice_size = max(1, settings.embedding_batch * 4)
        pending = 0
        for start in range(0, len(missing), slice_size):
            if start == 0:
                async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
                    pending = await docs.pending_vector_count(conn)
            await self.progress(cmd.document_id, "embedding", start, len(missing), eta_s=self.pace.eta_s(pending))
            part = missing[start : start + slice_size]
            began = clock()
            vectors = await embed_sorted(
                [text for _, text in part],
                dim=settings.embedding_dim,
                slice_size=slice_size,
                wait_s=settings.embed_wait_s,
                progress=_quiet,
                background=True,
            )
            async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
                await docs.set_chunk_vectors(conn, [chunk_id for chunk_id, _ in part], vectors)
            self.pace.record(len(part), clock() - began)
            pending -= len(part)
        return len(missing)

    async def sentence_vectors(self, cmd: CompleteIndexCommand, document: dict[str, Any]) -> int:
        settings = self.infra.settings
        async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
            sentences = document_sentences(await docs.chunk_texts(conn, cmd.document_id))
            known = await stored_vectors(conn, settings.embedding_model, [text_key(s) for s in sentences])
        missing = [s for s in sentences if text_key(s) not in known]

        async def step(done: int, total: int) -> None:
            await self.progress(cmd.document_id, "sentences", done, total)

        computed = await embed_sorted(
            missing,
            dim=settings.embedding_dim,
            slice_size=max(1, settings.embedding_batch * 4),
            wait_s=settings.embed_wait_s,
            progress=step,
            background=True,
        )
        if sentences:
            rows = dict(zip(missing, computed, strict=True))
            vectors = np.stack([rows[s] if s in rows else known[text_key(s)] for s in sentences])
            async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
                await replace_sentence_vectors(conn, document, settings.embedding_model, sentences, vectors)
        log.info(
            "document %s: %d sentence vectors (%d computed, %d copied)",
            cmd.document_id, len(sentences), len(missing), len(sentences) - len(missing),
        )  # fmt: skip
        return len(sentences)


async def requeue(infra: Infra, cmd: CompleteIndexCommand, reason: str) -> None:
    """A round of the second phase dead-lettered: queue the next (a new message id, so the bus's
    de-duplication does not drop it) while rounds are left, and say where the document stands on
    its progress subject: `retrying`, or `done` with the reason once every round failed (the
    document stays searchable by its words; an earlier complete version keeps answering)."""
    retries = infra.settings.vectors_retries
    async with tenant_tx(infra.db, cmd.tenant_id, cmd.user_id) as conn:
        outcome = await docs.record_vectors_failure(conn, cmd.document_id, retries)
        if outcome is None:
            return  # deleted, or being ingested again: that ingest queues its own second phase
        state, failed_rounds = outcome
        reason = reason[:300]
        if state == "retrying":
            stage = "retrying"
            message = f"meaning search is not complete yet ({reason}); trying again, round {failed_rounds + 1}"
            message += f" of {retries + 1}"
        else:
            stage = "done"
            message = f"meaning search could not be completed after {failed_rounds} rounds ({reason})"
        await docs.set_vectors_error(conn, cmd.document_id, message)
    log.warning("document %s: vectors round %d failed (%s): %s", cmd.document_id, failed_rounds, state, reason)
    if state == "retrying":
        await publish(
            infra.bus,
            infra.bus.subjects.cmd_complete_index,
            cmd,
            msg_id=f"complete:{cmd.document_id}:round{failed_rounds + 1}",
        )
    event = IngestProgress(
        document_id=cmd.document_id, status="ready", stage=stage, done=failed_rounds, total=retries + 1, error=message
    )
    await publish(infra.bus, infra.bus.subjects.evt_ingest(cmd.document_id), event)


async def _quiet(done: int, total: int) -> None:
    """Chunk vectors report per slice of the document above, not per request."""
