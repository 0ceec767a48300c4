"""SQL for documents, sets and chunks, shared by the gateway and the ingest worker.

Every function takes a connection opened by `tenant_tx`, so RLS scopes it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

import numpy as np

from shared.db.conn import Conn, one
from shared.text.labels import document_label

SET_PALETTE: tuple[str, ...] = (
    "#2563eb",
    "#16a34a",
    "#dc2626",
    "#9333ea",
    "#ea580c",
    "#0891b2",
    "#ca8a04",
    "#db2777",
)


def _complete(alias: str) -> str:
    """SQL: the document `alias` has every chunk's vector (the partial index of waiting chunks answers)."""
    return f"NOT EXISTS (SELECT 1 FROM chunks u WHERE u.document_id = {alias}.id AND u.embedding IS NULL)"


DOCUMENT_COLUMNS = f"""
    d.id, d.tenant_id, d.user_id, d.title, d.version, d.doc_type, d.set_id, s.name AS set_name,
    s.color AS set_color, d.source_type, d.filename, d.mime, d.sha256, d.byte_size,
    d.page_count, d.chunk_count, d.status, d.error, d.object_key, d.visibility,
    d.rendition_key, d.warning, d.created_at, d.updated_at, d.vectors_error, d.vectors_rounds,
    (SELECT count(*) FROM chunks w WHERE w.document_id = d.id AND w.embedding IS NULL) AS vectors_pending,
    CASE WHEN d.status <> 'ready' THEN NULL WHEN d.vectors_state IS NOT NULL THEN d.vectors_state
         WHEN NOT {_complete("d")} THEN 'pending' ELSE 'complete' END AS vectors_state
"""


class LibraryEntry(TypedDict):
    """A ready document as the resolver matches a question's titles against it."""

    id: uuid.UUID
    title: str
    version: str
    doc_type: str


async def get_or_create_set(
    conn: Conn, tenant_id: uuid.UUID, user_id: str, name: str, color: str | None = None
) -> uuid.UUID:
    """The user's set called `name`, created on first use with `color` or the next palette colour."""
    if color is None:
        count = await one(await conn.execute("SELECT count(*) AS n FROM sets WHERE user_id = %s", (user_id,)))
        color = SET_PALETTE[count["n"] % len(SET_PALETTE)]
    row = await one(
        await conn.execute(
            "INSERT INTO sets (id, tenant_id, user_id, name, color) VALUES (%s, %s, %s, %s, %s) "
            "ON CONFLICT (tenant_id, user_id, name) DO UPDATE SET name = EXCLUDED.name RETURNING id",
            (uuid.uuid4(), tenant_id, user_id, name, color),
        )
    )
    return row["id"]


async def list_sets(conn: Conn, user_id: str) -> list[dict[str, Any]]:
    return await (
        await conn.execute(
            "SELECT s.id, s.name, s.color, s.created_at, count(d.id) AS document_count FROM sets s"
            " LEFT JOIN documents d ON d.set_id = s.id WHERE s.user_id = %s GROUP BY s.id ORDER BY s.name",
            (user_id,),
        )
    ).fetchall()


async def owns_set(conn: Conn, set_id: uuid.UUID, user_id: str) -> bool:
    """Sets are personal: a set of another user of the tenant does not exist for the caller."""
    row = await (await conn.execute("SELECT 1 FROM sets WHERE id = %s AND user_id = %s", (set_id, user_id))).fetchone()
    return row is not None


async def get_document(conn: Conn, document_id: uuid.UUID) -> dict[str, Any] | None:
    return await (
        await conn.execute(
            f"SELECT {DOCUMENT_COLUMNS} FROM documents d LEFT JOIN sets s ON s.id = d.set_id WHERE d.id = %s",
            (document_id,),
        )
    ).fetchone()


async def insert_document(conn: Conn, fields: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """Insert a queued document; returns (row, created). Same bytes+title+version → existing row."""
    row = await (
        await conn.execute(
            "INSERT INTO documents (id, tenant_id, user_id, title, version, doc_type, set_id, source_type,"
            " filename, mime, sha256, byte_size, object_key, visibility, status)"
            " VALUES (%(id)s, %(tenant_id)s, %(user_id)s, %(title)s, %(version)s, %(doc_type)s, %(set_id)s,"
            " %(source_type)s, %(filename)s, %(mime)s, %(sha256)s, %(byte_size)s, %(object_key)s,"
            " %(visibility)s, 'queued')"
            " ON CONFLICT DO NOTHING RETURNING id",
            fields,
        )
    ).fetchone()
    if row is not None:
        return await _visible_document(conn, row["id"]), True
    existing = await (
        await conn.execute(
            "SELECT id FROM documents WHERE (sha256, title, version) = (%s, %s, %s) OR id = %s",
            (fields["sha256"], fields["title"], fields["version"], fields["id"]),
        )
    ).fetchone()
    if existing is None:
        raise LookupError("document exists but is not visible to this user")
    return await _visible_document(conn, existing["id"]), False


async def _visible_document(conn: Conn, document_id: uuid.UUID) -> dict[str, Any]:
    """A document this transaction has just found or inserted (so RLS shows it)."""
    document = await get_document(conn, document_id)
    if document is None:
        raise LookupError(f"document {document_id} vanished inside its own transaction")
    return document


async def set_status(
    conn: Conn,
    document_id: uuid.UUID,
    status: str,
    *,
    error: str | None = None,
    page_count: int | None = None,
    mime: str | None = None,
    rendition_key: str | None = None,
    warning: str | None = None,
) -> None:
    await conn.execute(
        "UPDATE documents SET status = %s, error = %s, page_count = COALESCE(%s, page_count),"
        " mime = COALESCE(%s, mime), rendition_key = COALESCE(%s, rendition_key),"
        " warning = COALESCE(%s, warning), updated_at = now() WHERE id = %s",
        (status, error, page_count, mime, rendition_key, warning, document_id),
    )


async def replace_chunks(
    conn: Conn,
    document: dict[str, Any],
    chunks: Sequence[Any],
    embeddings: np.ndarray | None,
) -> None:
    """Write all chunks of a document in one batch; earlier partial writes are replaced.
    `embeddings` None stores them without vectors (searchable by words; completion.py adds them).

    Batched INSERT, not COPY: Postgres refuses COPY FROM into tables with row-level security.
    """
    await conn.execute("DELETE FROM chunks WHERE document_id = %s", (document["id"],))
    vectors = [None] * len(chunks) if embeddings is None else embeddings
    async with conn.cursor() as cur:
        await cur.executemany(
            "INSERT INTO chunks (id, tenant_id, user_id, visibility, document_id, ordinal, page, char_start,"
            " char_end, section, text, embedding, page_breaks)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [
                (
                    uuid.uuid5(document["id"], str(chunk.ordinal)),
                    document["tenant_id"],
                    document["user_id"],
                    document["visibility"],
                    document["id"],
                    chunk.ordinal,
                    chunk.page,
                    chunk.char_start,
                    chunk.char_end,
                    chunk.section,
                    chunk.text.replace("\x00", ""),
                    vector,
                    list(chunk.page_breaks),
                )
                for chunk, vector in zip(chunks, vectors, strict=True)
            ],
        )
    await conn.execute(
        "UPDATE documents SET chunk_count = %s, status = 'ready', error = NULL, vectors_state = NULL,"
        " vectors_error = NULL, vectors_rounds = 0, updated_at = now() WHERE id = %s",
        (len(chunks), document["id"]),
    )


async def list_documents(conn: Conn) -> list[dict[str, Any]]:
    return await (
        await conn.execute(
            f"SELECT {DOCUMENT_COLUMNS} FROM documents d LEFT JOIN sets s ON s.id = d.set_id"
            " ORDER BY s.name NULLS FIRST, d.created_at DESC"
        )
    ).fetchall()


async def documents_by_ids(conn: Conn, ids: Sequence[uuid.UUID]) -> list[dict[str, Any]]:
    return await (
        await conn.execute(
            f"SELECT {DOCUMENT_COLUMNS} FROM documents d LEFT JOIN sets s ON s.id = d.set_id WHERE d.id = ANY(%s)",
            (list(ids),),
        )
    ).fetchall()


async def documents_in_sets(conn: Conn, set_ids: Sequence[uuid.UUID]) -> list[dict[str, Any]]:
    return await (
        await conn.execute(
            f"SELECT {DOCUMENT_COLUMNS} FROM documents d LEFT JOIN sets s ON s.id = d.set_id"
            " WHERE d.set_id = ANY(%s) ORDER BY d.created_at",
            (list(set_ids),),
        )
    ).fetchall()


async def has_ready_documents(conn: Conn) -> bool:
    """Whether there is anything to search at all (the caller's own and the tenant's shared documents)."""
    row = await one(await conn.execute("SELECT count(*) AS n FROM documents WHERE status = 'ready'"))
    return row["n"] > 0


async def chunk_counts(conn: Conn, doc_ids: Sequence[str]) -> list[int]:
    """How many chunks each ready document of `doc_ids` has (those the caller may see: RLS hides the rest)."""
    rows = await (
        await conn.execute(
            "SELECT chunk_count FROM documents WHERE id = ANY(%s) AND status = 'ready'",
            ([uuid.UUID(str(doc_id)) for doc_id in doc_ids],),
        )
    ).fetchall()
    return [row["chunk_count"] or 0 for row in rows]


# Which version of a title answers an untagged question (docs/ingest.md, "Versions"): the owner's
# newest *complete* ready version (every chunk has its vector), or, while no version is complete,
# the newest ready one. A new version in its vectors window (searchable by words, vectors on the
# way), or whose vectors phase failed, leaves the previous complete version answering; a version
# that is ingesting or failed is not ready and never answers. Every other ready version is
# superseded: it answers when tagged, and a name mention still sees every version (the resolver
# asks which one when a mention fits several and names no version).
SUPERSEDED = f"""
    EXISTS (SELECT 1 FROM documents n WHERE n.user_id = d.user_id AND n.title = d.title AND n.id <> d.id
            AND n.status = 'ready'
            AND CASE WHEN {_complete("n")} THEN n.created_at > d.created_at OR NOT {_complete("d")}
                     ELSE n.created_at > d.created_at AND NOT {_complete("d")} END)
"""


async def ready_documents(conn: Conn) -> list[LibraryEntry]:
    """The caller's searchable library, oldest first."""
    rows = await (
        await conn.execute(
            "SELECT id, title, version, doc_type FROM documents WHERE status = 'ready' ORDER BY created_at"
        )
    ).fetchall()
    return [LibraryEntry(id=r["id"], title=r["title"], version=r["version"], doc_type=r["doc_type"]) for r in rows]


async def superseded_ids(conn: Conn) -> list[uuid.UUID]:
    """Ready documents that a newer ready version replaces: left out of unscoped searches (they still
    answer when tagged by id)."""
    rows = await (await conn.execute(f"SELECT id FROM documents d WHERE status = 'ready' AND {SUPERSEDED}")).fetchall()
    return [r["id"] for r in rows]


async def delete_document(conn: Conn, document_id: uuid.UUID) -> bool:
    result = await conn.execute("DELETE FROM documents WHERE id = %s", (document_id,))
    return result.rowcount > 0


def display_name(document: Mapping[str, Any]) -> str:
    return document_label(document["title"], document["version"])


async def earlier_version_vectors(conn: Conn, document: dict[str, Any], texts: Sequence[str]) -> dict[str, np.ndarray]:
    """Vectors of chunks with exactly these texts in the owner's other versions of the document
    (same title): a new version re-embeds only what changed (docs/ingest.md)."""
    if not texts:
        return {}
    rows = await (
        await conn.execute(
            "SELECT DISTINCT ON (c.text) c.text, c.embedding FROM chunks c JOIN documents d ON d.id = c.document_id"
            " WHERE d.user_id = %s AND d.title = %s AND d.id <> %s AND d.status = 'ready' AND c.text = ANY(%s)"
            " AND c.embedding IS NOT NULL",
            (document["user_id"], document["title"], document["id"], list(texts)),
        )
    ).fetchall()
    return {r["text"]: r["embedding"].to_numpy().astype(np.float32) for r in rows}


async def same_content(conn: Conn, sha256: str, user_id: str) -> list[dict[str, Any]]:
    """The user's documents holding exactly these bytes (any title or version), oldest first."""
    return await (
        await conn.execute(
            f"SELECT {DOCUMENT_COLUMNS} FROM documents d LEFT JOIN sets s ON s.id = d.set_id"
            " WHERE d.sha256 = %s AND d.user_id = %s AND d.status <> 'failed' ORDER BY d.created_at",
            (sha256, user_id),
        )
    ).fetchall()


async def chunk_texts(conn: Conn, document_id: uuid.UUID) -> list[str]:
    """The stored chunk texts of a document, in order."""
    rows = await (
        await conn.execute("SELECT text FROM chunks WHERE document_id = %s ORDER BY ordinal", (document_id,))
    ).fetchall()
    return [r["text"] for r in rows]


async def pending_vector_count(conn: Conn) -> int:
    """Chunks the caller may read that still wait for their vector (the second ingest phase)."""
    row = await (await conn.execute("SELECT count(*) AS n FROM chunks WHERE embedding IS NULL")).fetchone()
    return int(row["n"]) if row else 0


async def chunks_without_vectors(conn: Conn, document_id: uuid.UUID) -> list[tuple[uuid.UUID, str]]:
    """(id, text) of the document's chunks stored without a vector, in order."""
    rows = await (
        await conn.execute(
            "SELECT id, text FROM chunks WHERE document_id = %s AND embedding IS NULL ORDER BY ordinal", (document_id,)
        )
    ).fetchall()
    return [(r["id"], r["text"]) for r in rows]


async def set_chunk_vectors(conn: Conn, chunk_ids: Sequence[uuid.UUID], vectors: np.ndarray) -> None:
    async with conn.cursor() as cur:
        await cur.executemany(
            "UPDATE chunks SET embedding = %s WHERE id = %s",
            [(vector, chunk_id) for chunk_id, vector in zip(chunk_ids, vectors, strict=True)],
        )


async def record_vectors_failure(conn: Conn, document_id: uuid.UUID, retries: int) -> tuple[str, int] | None:
    """A round of the second ingest phase dead-lettered: `retrying` while fewer than `retries`
    rounds were queued again, then `failed`. (state, rounds failed so far), or None when the
    document is no longer ready (deleted, or ingested again meanwhile): nothing to retry."""
    row = await (
        await conn.execute(
            "UPDATE documents SET vectors_rounds = vectors_rounds + 1,"
            " vectors_state = CASE WHEN vectors_rounds < %(retries)s THEN 'retrying' ELSE 'failed' END,"
            " updated_at = now() WHERE id = %(id)s AND status = 'ready' RETURNING vectors_state, vectors_rounds",
            {"id": document_id, "retries": retries},
        )
    ).fetchone()
    return (row["vectors_state"], row["vectors_rounds"]) if row else None


async def set_vectors_error(conn: Conn, document_id: uuid.UUID, message: str) -> None:
    """What the owner is told about the failed round (`vectors_error`)."""
    await conn.execute("UPDATE documents SET vectors_error = %s WHERE id = %s", (message, document_id))


async def clear_vectors_failure(conn: Conn, document_id: uuid.UUID) -> None:
    """The second phase completed: whatever an earlier round left is history."""
    await conn.execute(
        "UPDATE documents SET vectors_state = NULL, vectors_error = NULL WHERE id = %s AND vectors_state IS NOT NULL",
        (document_id,),
    )
