"""Search and sampling SQL over `chunks` (SPEC §6), always inside a tenant transaction.

Scoped searches (documents or a set) run exact over the scope through a MATERIALIZED CTE:
filtered HNSW can silently return fewer than k rows for selective filters, while an exact scan
of a few hundred rows is sub-millisecond. Unscoped searches use the HNSW index with pgvector
0.8's iterative scan so RLS filtering cannot starve the result.
"""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np
from psycopg import AsyncConnection

from shared.contracts import ChunkHit, Scope

HIT_COLUMNS = """
    c.id AS chunk_id, c.document_id, d.title, d.version, d.doc_type, c.page, c.ordinal,
    c.section, c.text
"""


def _hit(row: dict[str, Any]) -> ChunkHit:
    similarity = float(row.get("similarity", 0.0))
    return ChunkHit(
        **{
            k: row[k]
            for k in ("chunk_id", "document_id", "title", "version", "doc_type", "page", "ordinal", "section", "text")
        },
        similarity=similarity,
        score=similarity,
    )


async def scope_document_ids(conn: AsyncConnection, scope: Scope) -> list[uuid.UUID] | None:
    """Visible ready document ids of the scope; None means everything visible."""
    if scope.doc_ids:
        rows = await (
            await conn.execute("SELECT id FROM documents WHERE id = ANY(%s) AND status = 'ready'", (scope.doc_ids,))
        ).fetchall()
        return [r["id"] for r in rows]
    if scope.set_id is not None:
        rows = await (
            await conn.execute("SELECT id FROM documents WHERE set_id = %s AND status = 'ready'", (scope.set_id,))
        ).fetchall()
        return [r["id"] for r in rows]
    return None


async def search_scoped(
    conn: AsyncConnection, query: np.ndarray, doc_ids: list[uuid.UUID], per_doc_k: int, total_k: int
) -> list[ChunkHit]:
    """Per-document balanced exact search: the top `per_doc_k` of each document, ≤ `total_k`."""
    if not doc_ids:
        return []
    rows = await (
        await conn.execute(
            f"""
            WITH scope AS MATERIALIZED (
                SELECT c.id, c.document_id, c.embedding <=> %(q)s AS distance
                FROM chunks c WHERE c.document_id = ANY(%(ids)s)
            ), ranked AS (
                SELECT id, distance,
                       row_number() OVER (PARTITION BY document_id ORDER BY distance) AS rank_in_doc
                FROM scope
            )
            SELECT {HIT_COLUMNS}, 1 - r.distance AS similarity
            FROM ranked r JOIN chunks c ON c.id = r.id JOIN documents d ON d.id = c.document_id
            WHERE r.rank_in_doc <= %(per_doc_k)s
            ORDER BY r.distance
            LIMIT %(total_k)s
            """,
            {"q": query, "ids": doc_ids, "per_doc_k": per_doc_k, "total_k": total_k},
        )
    ).fetchall()
    return [_hit(r) for r in rows]


async def search_all(conn: AsyncConnection, query: np.ndarray, total_k: int) -> list[ChunkHit]:
    """Everything the caller may see, through HNSW with iterative scanning under RLS."""
    await conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
    await conn.execute("SET LOCAL hnsw.ef_search = 100")
    rows = await (
        await conn.execute(
            f"""
            WITH nearest AS MATERIALIZED (
                SELECT c.id, c.embedding <=> %(q)s AS distance
                FROM chunks c ORDER BY c.embedding <=> %(q)s LIMIT %(k)s
            )
            SELECT {HIT_COLUMNS}, 1 - n.distance AS similarity
            FROM nearest n JOIN chunks c ON c.id = n.id JOIN documents d ON d.id = c.document_id
            WHERE d.status = 'ready'
            ORDER BY n.distance
            """,
            {"q": query, "k": total_k},
        )
    ).fetchall()
    return [_hit(r) for r in rows]


def sample_ordinals(chunk_count: int, *, fraction: float = 0.175, minimum: int = 10, maximum: int = 30) -> list[int]:
    """Evenly spread ordinals: 15–20 % of a document's chunks, at least 10, at most 30."""
    if chunk_count <= 0:
        return []
    k = min(chunk_count, max(minimum, min(maximum, round(chunk_count * fraction))))
    if k >= chunk_count:
        return list(range(chunk_count))
    step = chunk_count / k
    return sorted({int(i * step + step / 2) for i in range(k)})


async def sample_documents(conn: AsyncConnection, doc_ids: list[uuid.UUID]) -> list[ChunkHit]:
    docs = await (
        await conn.execute("SELECT id, chunk_count FROM documents WHERE id = ANY(%s) AND status = 'ready'", (doc_ids,))
    ).fetchall()
    hits: list[ChunkHit] = []
    for doc in docs:
        rows = await (
            await conn.execute(
                f"SELECT {HIT_COLUMNS} FROM chunks c JOIN documents d ON d.id = c.document_id"
                " WHERE c.document_id = %s AND c.ordinal = ANY(%s) ORDER BY c.ordinal",
                (doc["id"], sample_ordinals(doc["chunk_count"])),
            )
        ).fetchall()
        hits.extend(_hit(r) for r in rows)
    return hits
