"""Search and sampling SQL over `chunks` (docs/architecture.md §6), always inside a tenant transaction.

Scoped searches (documents or a set) run exact over the scope through a MATERIALIZED CTE:
filtered HNSW can silently return fewer than k rows for selective filters, while an exact scan
of a few hundred rows is sub-millisecond. Unscoped searches use the HNSW index with pgvector
0.8's iterative scan so RLS filtering cannot starve the result. Hybrid mode adds Postgres
full-text ranks (GIN on `tsv`) and fuses both by reciprocal rank fusion; without an embedder
the full-text ranks answer alone (graceful degradation).

A document searchable by its words whose chunk vectors are still being computed (docs/ingest.md,
"the two phases") takes part by meaning too: the retrieval worker embeds its best full-text
candidates still without a vector at question time (`unembedded_candidates`) and passes them in
as `Fresh`, so they are ranked by their true cosine beside every stored vector. Once the stored
vectors land the same chunks rank the same way; in the window only the full-text candidates can
be found, which is the whole of the quality gap.
"""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np

from services.retrieval import statement_pages as statements
from services.retrieval.hits import HIT_COLUMNS, as_hit
from services.retrieval.table_rows import ROW_SQL, table_neighbours
from shared.contracts import ChunkHit, Scope
from shared.db import documents as docs
from shared.db.conn import Conn
from shared.text.statements import named_statements


class Fresh:
    """Vectors computed at question time for chunks stored without one, by chunk id."""

    def __init__(self, ids: list[uuid.UUID], vectors: np.ndarray) -> None:
        self.ids = ids
        # pgvector's text form: a parameter array of `vector` needs no adapter registration.
        self.vectors = ["[" + ",".join(f"{x:.7g}" for x in row) + "]" for row in vectors]

    def __bool__(self) -> bool:
        return bool(self.ids)


async def scope_document_ids(conn: Conn, scope: Scope) -> list[uuid.UUID] | None:
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


RRF_K = 60
# HNSW candidate list size for unscoped searches. bench/retrieval.py measured recall@10 vs exact
# search and latency at 10k/100k chunks for 40/64/100/200 (docs/benchmarks.md, "Retrieval: benchmarks and calibration").
EF_SEARCH = 100
# OR of the query's stemmed terms: natural questions rarely contain every term of a passage.
TSQUERY = "to_tsquery('english', NULLIF(replace(plainto_tsquery('english', %(qt)s)::text, ' & ', ' | '), ''))"


# Full-text rank within a scope by BM25 (k1 1.2, b 0.75, the textbook values), not ts_rank_cd.
# ts_rank_cd weighs every query term alike, so in a long filing "Amazon", "March", "31" and "2023",
# printed on nearly every page and in every table row's column headers, outweigh the "long-term
# debt" a question asks about; BM25 weighs a term by how few of the scope's chunks hold it. Term
# counts come from the stored tsvector (its positions; length is its number of distinct lexemes),
# unnested only for the chunks that match (the GIN index finds them).
BM25_CTES = """
    query_terms AS MATERIALIZED (
        SELECT DISTINCT lex FROM unnest(tsvector_to_array(to_tsvector('english', %(qt)s))) AS t(lex)
    ), scope_size AS MATERIALIZED (
        SELECT count(*) AS n, GREATEST(avg(length(c.tsv)), 1) AS avg_len FROM chunks c WHERE {scope}
    ), term_counts AS MATERIALIZED (
        SELECT c.id, u.lexeme, COALESCE(cardinality(u.positions), 1) AS tf, length(c.tsv) AS len
        FROM chunks c CROSS JOIN LATERAL unnest(c.tsv) AS u
        WHERE {scope} AND c.tsv @@ {tsquery} AND u.lexeme IN (SELECT lex FROM query_terms)
    ), bm25 AS MATERIALIZED (
        SELECT t.id, sum(
            ln(1 + (s.n - d.df + 0.5) / (d.df + 0.5)) * t.tf * 2.2 / (t.tf + 1.2 * (0.25 + 0.75 * t.len / s.avg_len))
        ) AS score
        FROM term_counts t
        JOIN (SELECT lexeme, count(*) AS df FROM term_counts GROUP BY lexeme) d USING (lexeme)
        CROSS JOIN scope_size s
        GROUP BY t.id
    )"""
BM25_JOIN = " LEFT JOIN bm25 ON bm25.id = c.id"
BM25_RANK = "COALESCE(bm25.score, 0)"

FRESH_CTE = "fresh AS MATERIALIZED (SELECT * FROM unnest(%(fresh_ids)s::uuid[], %(fresh_vecs)s::text[]) AS f(id, v))"


def _ranked_sql(
    scope_where: str,
    *,
    vector: bool,
    text: bool,
    candidates: tuple[str, ...] = (),
    fresh: bool = False,
    bm25: bool = False,
) -> str:
    """Vector and/or full-text ranks over a candidate set, fused by reciprocal rank fusion.

    `similarity` stays the cosine similarity (it feeds confidence); `score` is the fused rank
    score. A chunk survives the adaptive-k floor by similarity, or by matching the query's words.
    `fresh`: chunks without a stored vector use the one computed at question time (`Fresh`).
    `bm25`: full-text matches are ranked by BM25 over the scope (BM25_CTES), not ts_rank_cd.

    Every ordering ends in the chunk's place in its document, so ties rank the same on every run:
    the fused score ties often (a chunk fifth by meaning and one fifth by words), and Postgres
    orders ties as its plan happens to, which moved a question's passages, and so its answer and
    its confidence, from one run to the next over the same database.
    """
    stored = "COALESCE(c.embedding, f.v::vector)" if fresh else "c.embedding"
    distance = f"{stored} <=> %(q)s" if vector else "NULL::float8"
    text_rank = BM25_RANK if bm25 else f"ts_rank_cd(c.tsv, {TSQUERY})"
    text_score = f"CASE WHEN c.tsv @@ {TSQUERY} THEN {text_rank} END" if text else "NULL::float4"
    if fresh and FRESH_CTE not in candidates:
        candidates = (FRESH_CTE, *candidates)
    leading = "".join(f"{cte}, " for cte in candidates)
    join = (" LEFT JOIN fresh f ON f.id = c.id" if fresh else "") + (BM25_JOIN if text and bm25 else "")
    return f"""
        WITH {leading}scope AS MATERIALIZED (
            SELECT c.id, c.document_id, c.ordinal, {distance} AS distance, {text_score} AS text_score
            FROM chunks c{join} WHERE {scope_where}
        ), ranked AS (
            SELECT *,
                CASE WHEN distance IS NOT NULL
                     THEN row_number() OVER (ORDER BY distance, document_id, ordinal) END AS vec_pos,
                CASE WHEN text_score IS NOT NULL
                     THEN row_number() OVER (ORDER BY text_score DESC NULLS LAST, document_id, ordinal) END AS text_pos
            FROM scope
        ), fused AS (
            SELECT *, COALESCE(1.0 / ({RRF_K} + vec_pos), 0) + COALESCE(1.0 / ({RRF_K} + text_pos), 0) AS rrf
            FROM ranked
            WHERE (distance IS NOT NULL AND 1 - distance >= %(floor)s) OR text_score IS NOT NULL
        ), balanced AS (
            SELECT *, row_number() OVER (
                PARTITION BY document_id ORDER BY rrf DESC, distance NULLS LAST, ordinal
            ) AS rank_in_doc FROM fused
        )
        SELECT {HIT_COLUMNS}, COALESCE(1 - b.distance, 0) AS similarity, b.rrf AS score
        FROM balanced b JOIN chunks c ON c.id = b.id JOIN documents d ON d.id = c.document_id
        WHERE b.rank_in_doc <= %(per_doc_k)s
        ORDER BY b.rrf DESC, b.distance NULLS LAST, b.document_id, b.ordinal
        LIMIT %(total_k)s
    """


async def search_scoped(
    conn: Conn,
    query: np.ndarray | None,
    query_text: str | None,
    doc_ids: list[uuid.UUID],
    *,
    per_doc_k: int,
    total_k: int,
    floor: float,
    hybrid: bool,
    fresh: Fresh | None = None,
    rows: bool = False,
    neighbours: bool = False,
) -> list[ChunkHit]:
    """Exact search over the documents, the top `per_doc_k` of each, ≤ `total_k` in all, with the
    best chunks of the pages of a statement the query names among them (statement_pages.py).

    `query` None means the embedder is unavailable: full-text ranking alone answers. `rows`: only
    chunks holding a table row with a figure (the row of one line a figure is computed from, the
    table whose members a question compares), with `neighbours` each with the chunks of rows either
    side of it (table_rows.py).
    """
    if not doc_ids:
        return []
    params = {"q": query, "qt": query_text, "ids": doc_ids, "floor": floor, "per_doc_k": per_doc_k, "total_k": total_k}
    search = ScopedSearch(conn, query, query_text, hybrid, fresh)
    if rows:
        hits = await search.ranked("c.document_id = ANY(%(ids)s) AND c.text ~ %(row)s", params | {"row": ROW_SQL})
        return hits + await table_neighbours(conn, hits) if neighbours else hits
    hits = await search.ranked("c.document_id = ANY(%(ids)s)", params)
    named = named_statements(query_text or "")
    pages = await statements.titled_pages(conn, doc_ids, named) if named else []
    if not pages:
        return hits
    # At most half the passages, so the question's own best matches keep the rest.
    k = min(statements.PER_STATEMENT * len(named), total_k // 2)
    on_pages = await search.ranked(statements.PAGE_SCOPE, params | statements.scope_params(pages) | {"total_k": k})
    found = {hit.chunk_id for hit in hits}
    extra = [h for h in on_pages if h.chunk_id not in found]
    return [statements.marked(h, pages) for h in hits[: max(total_k - len(extra), 0)] + extra]


class ScopedSearch:
    """One question's fused search over a scope given as SQL (`c` is the chunk)."""

    def __init__(
        self, conn: Conn, query: np.ndarray | None, query_text: str | None, hybrid: bool, fresh: Fresh | None
    ) -> None:
        self.conn, self.query, self.fresh = conn, query, fresh
        self.use_text = bool(query_text) and (hybrid or query is None)
        self.with_fresh = bool(fresh) and query is not None

    async def ranked(self, scope: str, params: dict[str, Any]) -> list[ChunkHit]:
        sql = _ranked_sql(
            scope,
            vector=self.query is not None,
            text=self.use_text,
            fresh=self.with_fresh,
            candidates=(BM25_CTES.format(scope=scope, tsquery=TSQUERY),) if self.use_text else (),
            bm25=self.use_text,
        )
        params = params | _fresh_params(self.fresh if self.with_fresh else None)
        return [as_hit(r) for r in await (await self.conn.execute(sql, params)).fetchall()]


def _fresh_params(fresh: Fresh | None) -> dict[str, Any]:
    return {"fresh_ids": fresh.ids, "fresh_vecs": fresh.vectors} if fresh else {}


async def search_all(
    conn: Conn,
    query: np.ndarray | None,
    query_text: str | None,
    *,
    total_k: int,
    floor: float,
    hybrid: bool,
    fresh: Fresh | None = None,
) -> list[ChunkHit]:
    """Everything the caller may see: HNSW candidates (iterative scan, so RLS cannot starve them)
    and/or full-text candidates through the GIN index, and the chunks of `fresh`, then the same
    fusion."""
    use_text = bool(query_text) and (hybrid or query is None)
    with_fresh = bool(fresh) and query is not None
    # Earlier versions of a document answer only when tagged (shared/db/documents.py SUPERSEDED).
    superseded = await docs.superseded_ids(conn)
    candidates = []
    if query is not None:
        # One round trip, transaction-local like SET LOCAL.
        await conn.execute(
            "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', %s, true)",
            (str(EF_SEARCH),),
        )
        if not (use_text or with_fresh):
            return await _nearest(conn, query, total_k=total_k, floor=floor, superseded=superseded)
        candidates.append(
            "vec AS MATERIALIZED (SELECT c.id FROM chunks c WHERE c.document_id <> ALL(%(old)s)"
            " ORDER BY c.embedding <=> %(q)s LIMIT %(n)s)"
        )
    if use_text:
        candidates.append(
            f"txt AS MATERIALIZED (SELECT c.id FROM chunks c WHERE c.tsv @@ {TSQUERY}"
            f" AND c.document_id <> ALL(%(old)s) ORDER BY ts_rank_cd(c.tsv, {TSQUERY}) DESC, c.id LIMIT %(n)s)"
        )
    if with_fresh:
        candidates.append(FRESH_CTE)
    if not candidates:
        return []
    union = " UNION ".join(f"SELECT id FROM {cte.split()[0]}" for cte in candidates)
    sql = _ranked_sql(
        f"c.id IN ({union})", vector=query is not None, text=use_text, candidates=tuple(candidates), fresh=with_fresh
    )
    params = {
        "q": query, "qt": query_text, "n": total_k * 4, "floor": floor, "per_doc_k": total_k, "total_k": total_k,
        "old": superseded,
    } | _fresh_params(fresh if with_fresh else None)  # fmt: skip
    return [as_hit(r) for r in await (await conn.execute(sql, params)).fetchall()]


NEAREST_SQL = f"""
    SELECT {HIT_COLUMNS}, 1 - v.distance AS similarity, 1.0 / ({RRF_K} + v.pos) AS score
    FROM (
        SELECT n.id, n.distance, row_number() OVER (ORDER BY n.distance, n.id) AS pos
        FROM (SELECT c.id, c.embedding <=> %(q)s AS distance FROM chunks c WHERE c.document_id <> ALL(%(old)s)
              ORDER BY c.embedding <=> %(q)s LIMIT %(total_k)s) n
    ) v
    JOIN chunks c ON c.id = v.id JOIN documents d ON d.id = c.document_id
    WHERE 1 - v.distance >= %(floor)s
    ORDER BY v.pos
"""


async def _nearest(
    conn: Conn, query: np.ndarray, *, total_k: int, floor: float, superseded: list[uuid.UUID]
) -> list[ChunkHit]:
    """Vector-only search over everything visible: the top `total_k` straight from the HNSW index.

    The same result as the fused query with one ranked list (score = 1 / (60 + rank)), without
    its candidate CTEs and window functions (~3 ms less per search at 100k chunks).
    """
    params = {"q": query, "total_k": total_k, "floor": floor, "old": superseded}
    return [as_hit(r) for r in await (await conn.execute(NEAREST_SQL, params)).fetchall()]


async def unembedded_candidates(
    conn: Conn, query_text: str, doc_ids: list[uuid.UUID] | None, limit: int
) -> list[tuple[uuid.UUID, str]]:
    """(id, text) of chunks still without a vector worth embedding for this question. Over the
    whole library (None: everything visible, earlier versions excepted), the best full-text matches.
    In tagged documents, their full-text matches first, then their other chunks in reading order:
    a small tagged document is compared by meaning in full even when no word of the question is in
    it, as it would be once its vectors are stored. Cheap when there are none: the partial index of
    chunks waiting for their vector answers `embedding IS NULL`."""
    if limit <= 0:
        return []
    if doc_ids is None:
        where = f"c.document_id <> ALL(%(old)s) AND c.tsv @@ {TSQUERY}"
        order = f"ts_rank_cd(c.tsv, {TSQUERY}) DESC"
        params: dict[str, Any] = {"old": await docs.superseded_ids(conn)}
    else:
        where = "c.document_id = ANY(%(ids)s)"
        order = f"(c.tsv @@ {TSQUERY}) DESC, ts_rank_cd(c.tsv, {TSQUERY}) DESC, c.document_id, c.ordinal"
        params = {"ids": doc_ids}
    rows = await (
        await conn.execute(
            f"SELECT c.id, c.text FROM chunks c WHERE c.embedding IS NULL AND {where} ORDER BY {order} LIMIT %(n)s",
            params | {"qt": query_text, "n": limit},
        )
    ).fetchall()
    return [(r["id"], r["text"]) for r in rows]


def sample_ordinals(chunk_count: int, *, fraction: float = 0.175, minimum: int = 10, maximum: int = 30) -> list[int]:
    """Evenly spread ordinals: 15–20 % of a document's chunks, at least 10, at most 30."""
    if chunk_count <= 0:
        return []
    k = min(chunk_count, max(minimum, min(maximum, round(chunk_count * fraction))))
    if k >= chunk_count:
        return list(range(chunk_count))
    step = chunk_count / k
    return sorted({int(i * step + step / 2) for i in range(k)})


async def sample_documents(conn: Conn, doc_ids: list[uuid.UUID]) -> list[ChunkHit]:
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
        hits.extend(as_hit(r) for r in rows)
    return hits
