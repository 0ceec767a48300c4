"""Retrieval latency and recall, side by side in one run.

    .venv/bin/python -m bench.retrieval [--sizes 10000 100000] [--queries 300]

Starts embedded Postgres + NATS (the same `start_platform` the tests and `policypal up` use),
creates a tenant and, for each corpus size, a synthetic corpus of 384-d chunks in 200 documents,
inserted with binary COPY as the migration owner; the HNSW index of migration 0001 (m=16,
ef_construction=64, cosine) is dropped before the load and rebuilt after it, like a bulk load.

Vectors (why they are realistic enough for recall): ~6,500 real English sentences (package
descriptions and licences from the installed wheels, the standard library's docstrings) are
embedded with the production all-MiniLM-L6-v2. Each document gets a topic: a random anchor
sentence and its 300 nearest sentences. A chunk is two of its document's sentences, its vector
the normalised sum of their embeddings plus Gaussian noise (σ = 0.02 per dimension), its text
the two sentences (so full-text search has real words). Documents are therefore topically
clustered and the vectors lie on MiniLM's manifold, not uniform noise, which is what makes
HNSW recall hard. Queries are 300 held-out sentences (not used in any chunk), embedded.

Measured per size, in one process, through the production functions of
services/retrieval/search.py inside `tenant_tx` (RLS on, app role):
  - search_all: HNSW + iterative scan at ef_search 40/100/200 (100 is the production default),
    vector-only and hybrid (RRF with full text);
  - search_scoped: a random 5-document scope (exact search over the scope), vector and hybrid;
  - recall@10 against exact search (ORDER BY embedding <=> q with index scans disabled, same
    RLS and the same document filter), and the mean number of rows returned;
  - NATS request → reply through shared/retrieval/client.py against a retrieval worker
    running as its own process (`policypal worker retrieval`), with a precomputed query
    embedding and with query text (the worker embeds it).
Results: a table on stdout and bench/results/retrieval.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector_async

from bench.harness import admin_url, summary
from services.retrieval import search
from shared.bus.connection import connect_bus
from shared.config import Settings, get_settings
from shared.contracts import ChunkHit, Scope, SearchRequest
from shared.db.conn import Conn
from shared.db.pool import Database, open_database, tenant_tx
from shared.db.tenants import ensure_tenant
from shared.embeddings.provider import get_embedder
from shared.retrieval import client as retrieval_client
from shared.runtime.embedded import free_port
from shared.runtime.platform import Platform, start_platform

ROOT = Path(__file__).resolve().parent.parent
DOCS = 200
SCOPE_DOCS = 5
K = 10
# One timed search on a connection, and what builds it for a query (its text, vector and scope).
Search = Callable[[Conn], Awaitable[list[ChunkHit]]]
MakeSearch = Callable[[str, np.ndarray, list[uuid.UUID]], Search]
NOISE = 0.02
NEIGHBOURHOOD = 300
EF_SEARCH_SWEEP = (40, 64, 100, 200)
TARGETS = {"hnsw_p50_ms": 5.0, "hnsw_p99_ms": 20.0, "recall_at_10": 0.95, "rpc_p50_ms": 10.0}
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def harvest_sentences() -> list[str]:
    """Real English sentences available offline: wheel metadata/licences, stdlib docstrings."""
    site = Path(np.__file__).resolve().parent.parent
    texts = []
    for pattern in ("*.dist-info/METADATA", "*.dist-info/LICENSE*", "*.dist-info/licenses/*"):
        for path in sorted(site.glob(pattern)):
            if path.is_file():
                text = path.read_text(errors="ignore")
                texts.append(re.sub(r"```.*?```", " ", re.sub(r"^[A-Za-z-]+: .*$", " ", text, flags=re.M), flags=re.S))
    stdlib = Path(sys.base_prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    for path in sorted(stdlib.glob("*.py")):
        texts += re.findall(r'"""(.*?)"""', path.read_text(errors="ignore"), flags=re.S)
    seen: set[str] = set()
    sentences = []
    for text in texts:
        for s in SENTENCE.split(re.sub(r"\s+", " ", text)):
            s = s.strip()
            wordy = 50 <= len(s) <= 300 and sum(c.isalpha() or c == " " for c in s) / len(s) > 0.85
            if wordy and s.lower() not in seen:
                seen.add(s.lower())
                sentences.append(s)
    return sentences


class Corpus:
    """Sentence pool + held-out queries, embedded once; chunks generated per size."""

    def __init__(self, n_queries: int, seed: int = 7) -> None:
        rng = np.random.default_rng(seed)
        sentences = harvest_sentences()
        order = rng.permutation(len(sentences))
        self.query_texts = [sentences[i] for i in order[:n_queries]]
        self.pool_texts = [sentences[i] for i in order[n_queries:]]
        embedder = get_embedder(get_settings())
        started = time.perf_counter()
        self.query_vecs = embedder.embed(self.query_texts)
        self.pool_vecs = embedder.embed(self.pool_texts)
        self.embed_s = time.perf_counter() - started
        self.seed = seed

    def chunks(self, n_chunks: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """(document index per chunk, vectors, texts) for `n_chunks` chunks in DOCS documents."""
        rng = np.random.default_rng(self.seed + n_chunks)
        doc_of = np.repeat(np.arange(DOCS), n_chunks // DOCS)
        doc_of = np.concatenate([doc_of, np.arange(n_chunks - len(doc_of))])
        anchors = rng.choice(len(self.pool_texts), DOCS, replace=False)
        neighbourhoods = np.argsort(-(self.pool_vecs[anchors] @ self.pool_vecs.T), axis=1)[:, :NEIGHBOURHOOD]
        picks = neighbourhoods[doc_of[:, None], rng.integers(0, NEIGHBOURHOOD, (n_chunks, 2))]
        vecs = self.pool_vecs[picks[:, 0]] + self.pool_vecs[picks[:, 1]]
        vecs += rng.normal(0, NOISE, vecs.shape).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        texts = [f"{self.pool_texts[a]} {self.pool_texts[b]}" for a, b in picks]
        return doc_of, vecs.astype(np.float32), texts


async def load(admin_url: str, tenant: uuid.UUID, user: str, corpus: Corpus, n_chunks: int) -> dict:
    """Replace the corpus with `n_chunks` chunks; COPY, then rebuild the HNSW index."""
    doc_of, vecs, texts = corpus.chunks(n_chunks)
    doc_ids = [uuid.uuid4() for _ in range(DOCS)]
    ordinals = np.zeros(n_chunks, dtype=np.int64)
    seen = np.zeros(DOCS, dtype=np.int64)
    for i, d in enumerate(doc_of):
        ordinals[i] = seen[d]
        seen[d] += 1
    timings = {}
    async with await psycopg.AsyncConnection.connect(admin_url, autocommit=True) as conn:
        await register_vector_async(conn)
        index = await (
            await conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'chunks_embedding_hnsw'")
        ).fetchone()
        if index is None:
            raise SystemExit("no HNSW index chunks_embedding_hnsw: the database's migrations have not run")
        indexdef = index[0]
        await conn.execute("TRUNCATE chunks, documents CASCADE")
        await conn.execute("DROP INDEX chunks_embedding_hnsw")
        started = time.perf_counter()
        async with conn.transaction(), conn.cursor() as cur:
            await cur.executemany(
                "INSERT INTO documents (id, tenant_id, user_id, title, doc_type, filename, sha256, object_key,"
                " status, chunk_count) VALUES (%s, %s, %s, %s, 'regulatory_source', %s, %s, %s, 'ready', %s)",
                [
                    (d, tenant, user, f"Synthetic {i}", f"doc-{i}.pdf", uuid.uuid4().hex, f"bench/{d}", int(seen[i]))
                    for i, d in enumerate(doc_ids)
                ],
            )
            async with cur.copy(
                "COPY chunks (id, tenant_id, user_id, document_id, ordinal, page, char_start, char_end, text,"
                " embedding) FROM STDIN WITH (FORMAT BINARY)"
            ) as copy:
                copy.set_types(["uuid", "uuid", "text", "uuid", "int4", "int4", "int4", "int4", "text", "vector"])
                for i in range(n_chunks):
                    o, text = int(ordinals[i]), texts[i]
                    await copy.write_row(
                        (uuid.uuid4(), tenant, user, doc_ids[doc_of[i]], o, o // 3 + 1, 0, len(text), text, vecs[i])
                    )
        timings["copy_s"] = round(time.perf_counter() - started, 1)
        started = time.perf_counter()
        await conn.execute("SET maintenance_work_mem = '2GB'")
        await conn.execute(indexdef)
        timings["hnsw_build_s"] = round(time.perf_counter() - started, 1)
        await conn.execute("VACUUM ANALYZE chunks")
        await conn.execute("VACUUM ANALYZE documents")
    return {"doc_ids": doc_ids, **timings}


async def exact(
    db: Database, tenant: uuid.UUID, user: str, q: np.ndarray, doc_ids: list[uuid.UUID] | None
) -> tuple[list[uuid.UUID], float]:
    """Brute force: sequential scan ordered by cosine distance, same RLS and filter."""
    started = time.perf_counter()
    async with tenant_tx(db, tenant, user) as conn:
        await conn.execute("SET LOCAL enable_indexscan = off")  # no HNSW: the scan below is exhaustive
        where = "" if doc_ids is None else "WHERE document_id = ANY(%(ids)s)"
        rows = await (
            await conn.execute(
                f"SELECT id FROM chunks {where} ORDER BY embedding <=> %(q)s LIMIT {K}", {"q": q, "ids": doc_ids}
            )
        ).fetchall()
    return [r["id"] for r in rows], time.perf_counter() - started


async def timed(db: Database, tenant: uuid.UUID, user: str, fn: Search) -> tuple[list[uuid.UUID], float]:
    started = time.perf_counter()
    async with tenant_tx(db, tenant, user) as conn:
        hits = await fn(conn)
    return [h.chunk_id for h in hits], time.perf_counter() - started


def recall(found: list[uuid.UUID], truth: list[uuid.UUID]) -> float:
    return len(set(found) & set(truth)) / len(truth) if truth else 1.0


async def measure_size(
    db: Database,
    tenant: uuid.UUID,
    user: str,
    corpus: Corpus,
    doc_ids: list[uuid.UUID],
    warmup: int,
    hybrid_queries: int,
) -> dict:
    default_ef = search.EF_SEARCH
    rng = np.random.default_rng(11)
    queries = list(zip(corpus.query_texts, corpus.query_vecs, strict=True))
    scopes = [list(rng.choice(len(doc_ids), SCOPE_DOCS, replace=False)) for _ in queries]
    scopes = [[doc_ids[i] for i in s] for s in scopes]

    truth_all: list[list[uuid.UUID]] = []
    truth_scoped: list[list[uuid.UUID]] = []
    t_exact_all: list[float] = []
    t_exact_scoped: list[float] = []
    for (_, q), scope in zip(queries, scopes, strict=True):
        ids, t = await exact(db, tenant, user, q, None)
        truth_all.append(ids)
        t_exact_all.append(t)
        ids, t = await exact(db, tenant, user, q, scope)
        truth_scoped.append(ids)
        t_exact_scoped.append(t)

    def all_search(ef: int, hybrid: bool) -> MakeSearch:
        def call(text: str, q: np.ndarray, scope: list[uuid.UUID]) -> Search:
            search.EF_SEARCH = ef
            return lambda conn: search.search_all(conn, q, text, total_k=K, floor=-1.0, hybrid=hybrid)

        return call

    def scoped_search(hybrid: bool) -> MakeSearch:
        def call(text: str, q: np.ndarray, scope: list[uuid.UUID]) -> Search:
            return lambda conn: search.search_scoped(
                conn, q, text, scope, per_doc_k=K, total_k=K, floor=-1.0, hybrid=hybrid
            )

        return call

    everyone = len(queries)
    configs = [
        (f"search_all HNSW ef_search={ef}", all_search(ef, False), truth_all, everyone) for ef in EF_SEARCH_SWEEP
    ]
    configs += [
        ("search_all hybrid (RRF)", all_search(search.EF_SEARCH, True), truth_all, hybrid_queries),
        (f"search_scoped {SCOPE_DOCS} docs", scoped_search(False), truth_scoped, everyone),
        (f"search_scoped {SCOPE_DOCS} docs hybrid", scoped_search(True), truth_scoped, everyone),
    ]
    rows = {
        "exact all (seq scan)": {**summary(t_exact_all), "recall_at_10": 1.0, "rows": K},
        f"exact {SCOPE_DOCS} docs": {**summary(t_exact_scoped), "recall_at_10": 1.0, "rows": K},
    }
    try:
        for name, make, truth, n_queries in configs:
            for (text, q), scope in list(zip(queries, scopes, strict=True))[: min(warmup, n_queries)]:
                await timed(db, tenant, user, make(text, q, scope))
            times: list[float] = []
            recalls: list[float] = []
            counts: list[int] = []
            for ((text, q), scope), wanted in list(zip(zip(queries, scopes, strict=True), truth, strict=True))[
                :n_queries
            ]:
                ids, elapsed = await timed(db, tenant, user, make(text, q, scope))
                times.append(elapsed)
                recalls.append(recall(ids, wanted))
                counts.append(len(ids))
            rows[name] = {
                **summary(times),
                "recall_at_10": round(float(np.mean(recalls)), 4),
                "rows": round(float(np.mean(counts)), 2),
            }
    finally:
        search.EF_SEARCH = default_ef
    return rows


async def alter_system(admin_url: str, name: str, value: str) -> None:
    async with await psycopg.AsyncConnection.connect(admin_url, autocommit=True) as conn:
        await conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")


async def server_facts(admin_url: str) -> dict:
    async with await psycopg.AsyncConnection.connect(admin_url) as conn:
        row = await (
            await conn.execute(
                "SELECT current_setting('shared_buffers'), current_setting('io_method'),"
                " pg_size_pretty(pg_relation_size('chunks_embedding_hnsw')),"
                " pg_size_pretty(pg_relation_size('chunks')),"
                " (SELECT extversion FROM pg_extension WHERE extname = 'vector'), current_setting('server_version')"
            )
        ).fetchone()
    if row is None:
        raise SystemExit("the server's settings query returned no row")
    keys = ("shared_buffers", "io_method", "hnsw_index_size", "chunks_heap_size", "pgvector", "postgres")
    return dict(zip(keys, row, strict=True))


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen:
    full = {**os.environ, **env, "PP_LOG_LEVEL": "WARNING", "HF_HUB_OFFLINE": "1"}
    with log.open("w") as fh:
        return subprocess.Popen(
            [sys.executable, "-m", "policypal.cli", "worker", "retrieval"],
            cwd=ROOT,
            env=full,
            stdout=fh,
            stderr=subprocess.STDOUT,
        )


async def measure_rpc(settings: Settings, tenant: uuid.UUID, user: str, corpus: Corpus, warmup: int) -> dict:
    bus = await connect_bus(settings, name="bench-retrieval")
    out = {}
    try:
        deadline = time.monotonic() + 120
        probe = SearchRequest(tenant_id=tenant, user_id=user, query_text="warm up", total_k=K)
        while True:  # the worker subscribes first, then loads the model
            try:
                await retrieval_client.search(bus, probe, timeout=30)
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.5)
        for label, with_text in (("RPC search (query embedding)", False), ("RPC search (query text, embedded)", True)):
            times = []
            for i, (text, q) in enumerate(zip(corpus.query_texts, corpus.query_vecs, strict=True)):
                request = SearchRequest(
                    tenant_id=tenant,
                    user_id=user,
                    query_text=text if with_text else None,
                    query_embedding=None if with_text else q.tolist(),
                    scope=Scope(),
                    total_k=K,
                    min_similarity=-1.0,
                    hybrid=False,
                )
                started = time.perf_counter()
                reply = await retrieval_client.search(bus, request, timeout=30)
                if i >= warmup or i == len(corpus.query_texts) - 1:
                    times.append(time.perf_counter() - started)
                assert reply.chunks, "RPC search returned nothing"
            out[label] = {**summary(times), "recall_at_10": None, "rows": K}
    finally:
        await bus.close()
    return out


async def run(args: argparse.Namespace, work: Path, platform: Platform, base: Settings) -> dict:
    worker = None
    try:
        settings = platform.settings(base)
        print(f"embedding {args.queries} queries and the sentence pool with MiniLM ...", flush=True)
        corpus = Corpus(args.queries)
        print(f"  {len(corpus.pool_texts)} pool sentences, {corpus.embed_s:.1f} s", flush=True)
        tenant, user = uuid.uuid4(), "bench"
        database = admin_url(settings)
        await ensure_tenant(database, tenant, "bench", user)
        worker = start_worker(platform.env(), work / "retrieval-worker.log")
        db = await open_database(settings)
        results: dict[str, Any] = {
            "corpus": {
                "documents": DOCS,
                "pool_sentences": len(corpus.pool_texts),
                "queries": len(corpus.query_texts),
                "noise_sigma": NOISE,
                "neighbourhood": NEIGHBOURHOOD,
                "scope_docs": SCOPE_DOCS,
                "k": K,
            },
            "targets": TARGETS,
            "sizes": {},
        }
        try:
            for n in sorted(args.sizes):
                print(f"loading {n} chunks ...", flush=True)
                loaded = await load(database, tenant, user, corpus, n)
                print(f"  COPY {loaded['copy_s']} s, HNSW build {loaded['hnsw_build_s']} s; measuring ...", flush=True)
                started = time.perf_counter()
                rows = await measure_size(db, tenant, user, corpus, loaded["doc_ids"], args.warmup, args.hybrid_queries)
                rows.update(await measure_rpc(settings, tenant, user, corpus, args.warmup))
                facts = await server_facts(database)
                results["sizes"][str(n)] = {
                    "server": facts,
                    "copy_s": loaded["copy_s"],
                    "hnsw_build_s": loaded["hnsw_build_s"],
                    "measure_s": round(time.perf_counter() - started, 1),
                    "results": rows,
                }
                print_table(n, rows, facts)
        finally:
            await db.close()
    finally:
        if worker is not None:
            worker.terminate()
            try:
                worker.wait(15)
            except subprocess.TimeoutExpired:
                worker.kill()
    return results


def print_table(n: int, rows: dict, facts: dict) -> None:
    print(f"\n{n} chunks; " + ", ".join(f"{k} {v}" for k, v in facts.items()))
    print(f"{'':<38}{'p50 ms':>8}{'p95 ms':>8}{'p99 ms':>8}{'recall@10':>11}{'rows':>7}")
    for name, r in rows.items():
        rec = "-" if r["recall_at_10"] is None else f"{r['recall_at_10']:.3f}"
        print(f"{name:<38}{r['p50_ms']:>8}{r['p95_ms']:>8}{r['p99_ms']:>8}{rec:>11}{r['rows']:>7}")


def verdicts(results: dict) -> list[str]:
    lines = []
    for n, size in results["sizes"].items():
        r = size["results"]
        hnsw = r[f"search_all HNSW ef_search={search.EF_SEARCH}"]
        scoped = r[f"search_scoped {SCOPE_DOCS} docs"]
        rpc = r["RPC search (query embedding)"]
        checks = [
            (f"HNSW ef={search.EF_SEARCH} p50 ≤ 5 ms", hnsw["p50_ms"] <= TARGETS["hnsw_p50_ms"], hnsw["p50_ms"]),
            ("HNSW p99 ≤ 20 ms", hnsw["p99_ms"] <= TARGETS["hnsw_p99_ms"], hnsw["p99_ms"]),
            ("HNSW recall@10 ≥ 0.95", hnsw["recall_at_10"] >= TARGETS["recall_at_10"], hnsw["recall_at_10"]),
            ("5-doc recall@10 ≥ 0.95", scoped["recall_at_10"] >= TARGETS["recall_at_10"], scoped["recall_at_10"]),
            ("RPC p50 ≤ 10 ms", rpc["p50_ms"] <= TARGETS["rpc_p50_ms"], rpc["p50_ms"]),
        ]
        lines += [f"{n:>7} chunks  {label:<24} {'met' if ok else 'MISSED'} ({value})" for label, ok, value in checks]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument(
        "--hybrid-queries", type=int, default=50, help="queries for unscoped hybrid search (slow at 100k)"
    )
    parser.add_argument(
        "--shared-buffers",
        help="set Postgres shared_buffers (e.g. 1GB) on the bench's private cluster; default: as `up` deploys it",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "retrieval.json")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="pp-bench-retrieval-"))
    started = time.perf_counter()
    base = Settings(nats_url=None, database_url=None, database_admin_url=None, nats_port=free_port())
    platform = start_platform(base, work / "platform")
    if args.shared_buffers:
        asyncio.run(alter_system(platform.database_admin_url, "shared_buffers", args.shared_buffers))
        platform.stop()  # a restart applies it; the data directory is reattached
        platform = start_platform(base, work / "platform")
    try:
        results = asyncio.run(run(args, work, platform, base))
    finally:
        platform.stop()
    results["total_s"] = round(time.perf_counter() - started, 1)
    print()
    for line in verdicts(results):
        print(line)
    print(f"total {results['total_s']} s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
