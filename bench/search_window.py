"""Search quality while a document is searchable by its words and its vectors are on the way (issue 28).

    policypal bench search_window [--split dev|test|both] [--candidates 20[,40,...]]

With PP_INGEST_READY_AT=words a document is `ready` as soon as its chunks are stored; its chunk
vectors follow in the background (docs/ingest.md). This measures what a question finds in that
window, on the labelled examples/eval corpus (22 public documents, bench/retrieval_eval.py's
questions and its recall@5 count), with the production search functions:

- `stored vectors`: every chunk has its vector (the window is over; the reference);
- the window, simulated exactly: every chunk's vector removed inside a transaction that is rolled
  back (nothing is written), then each question searched
  - `window, vector (before)`: what the default vector search found before issue 28's second
    part: nothing of a document without vectors;
  - `window, hybrid words only`: full-text ranks alone (what hybrid search found);
  - `window, question-time vectors`: the retrieval worker's answer now: the best full-text
    candidates still without a vector are embedded at question time (`--candidates` of them;
    several values, comma-separated, are measured in one run, one mode each, with the chunks
    embedded per question; a chunk's vector is computed once for all modes, and the seconds per
    chunk are reported once) and ranked by their true cosine (services/retrieval/search.py
    `Fresh`);
- the mean similarity of the top 15 (the statistic the actions turn into a confidence tier),
  answerable questions, per mode: confidence in the window compared with after it.
Writes bench/results/search_window.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from bench.retrieval_eval import QUESTIONS, RECALL_K, TIER_TOTAL_K, ingest_all, on_eval_corpus, rank_of_answer
from services.ingest import worker as ingest_worker
from services.retrieval import search
from shared.bus.connection import connect_bus
from shared.config import Settings
from shared.db.pool import open_database, tenant_tx
from shared.db.tenants import ensure_tenant
from shared.embeddings.provider import get_embedder
from shared.eval_split import split_of
from shared.runtime.service import Infra

ROOT = Path(__file__).resolve().parent.parent
MODES = ("stored vectors", "window, vector (before)", "window, hybrid words only")
FRESH_MODE = "window, question-time vectors"


def fresh_mode(candidates: int, several: bool) -> str:
    return f"{FRESH_MODE} ({candidates})" if several else FRESH_MODE


class _Rollback(Exception):
    """Ends the simulated window's transaction without writing anything."""


async def measure(
    settings: Settings, pdfs: dict[str, Path], splits: tuple[str, ...], candidates: list[int]
) -> dict[str, Any]:
    tenant, user = uuid.uuid4(), "window"
    if settings.admin_url is None:
        raise SystemExit("the search window bench needs PP_DATABASE_URL (or PP_DATABASE_ADMIN_URL)")
    await ensure_tenant(settings.admin_url, tenant, "search window bench", user)
    bus = await connect_bus(settings, name="search-window")
    db = await open_database(settings)
    infra = Infra(settings=settings, bus=bus, db=db)
    stop = asyncio.Event()
    worker = asyncio.create_task(ingest_worker.serve(infra, stop))
    try:
        doc_ids = await ingest_all(infra, tenant, user, pdfs)
    finally:
        stop.set()
        await asyncio.wait_for(worker, 30)
    answerable = [q for q in json.loads(QUESTIONS.read_text())["answerable"] if split_of(q["id"]) in splits]
    embedder = get_embedder(settings)
    texts = [q["question"] for q in answerable]
    qvec = dict(zip(texts, embedder.embed(texts), strict=True))
    fresh_modes = {fresh_mode(n, len(candidates) > 1): n for n in candidates}
    modes = (*MODES, *fresh_modes)
    found: dict[str, list[bool]] = {m: [] for m in modes}
    confidence: dict[str, list[float]] = {m: [] for m in modes}
    embedded: dict[str, list[int]] = {m: [] for m in fresh_modes}
    vectors: dict[str, np.ndarray] = {}  # chunk text → vector, shared by the modes
    spent = [0.0]

    def embed_once(texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in vectors]
        began = time.perf_counter()
        if missing:
            vectors.update(zip(missing, embedder.embed(missing), strict=True))
        spent[0] += time.perf_counter() - began
        return np.stack([vectors[t] for t in texts])

    async def one(conn: Any, mode: str, item: dict[str, Any]) -> None:
        q = item["question"]
        fresh = None
        if mode in fresh_modes:
            waiting = await search.unembedded_candidates(conn, q, None, fresh_modes[mode])
            embedded[mode].append(len(waiting))
            if waiting:
                fresh = search.Fresh([i for i, _ in waiting], embed_once([t for _, t in waiting]))
        hybrid = mode == "window, hybrid words only"
        query = None if hybrid else qvec[q]
        hits = await search.search_all(conn, query, q, total_k=RECALL_K, floor=-1.0, hybrid=hybrid, fresh=fresh)
        found[mode].append(rank_of_answer(hits, doc_ids[item["doc"]], item["answer"]) is not None)
        tier = await search.search_all(
            conn, query, q, total_k=TIER_TOTAL_K, floor=settings.similarity.min_similarity, hybrid=hybrid, fresh=fresh
        )
        confidence[mode].append(float(np.mean([h.similarity for h in tier])) if tier else 0.0)

    try:
        async with tenant_tx(db, tenant, user) as conn:
            for item in answerable:
                await one(conn, MODES[0], item)
        try:
            async with tenant_tx(db, tenant, user) as conn:
                await conn.execute("UPDATE chunks SET embedding = NULL")
                for item in answerable:
                    for mode in modes[1:]:
                        await one(conn, mode, item)
                raise _Rollback
        except _Rollback:
            pass
    finally:
        await bus.close()
        await db.close()
    return {
        "questions": len(answerable),
        "splits": list(splits),
        "candidates": candidates,
        "recall_at_5": {m: round(sum(v) / len(v), 3) for m, v in found.items()},
        "mean_similarity_top15": {m: round(float(np.mean(v)), 3) for m, v in confidence.items()},
        "chunks_embedded_per_question": {m: round(float(np.mean(v)), 1) for m, v in embedded.items()},
        "embed_s_per_chunk": round(spent[0] / max(len(vectors), 1), 4),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test", "both"), default="dev")
    parser.add_argument(
        "--candidates",
        type=lambda v: [int(n) for n in v.split(",")],
        default=[Settings().search_unembedded_candidates],
        help="question-time candidates; several, comma-separated, are measured in one run",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "search_window.json")
    args = parser.parse_args(argv)
    splits = ("dev", "test") if args.split == "both" else (args.split,)
    # The reference needs every vector stored before the questions (on_eval_corpus: ready at vectors).
    result = on_eval_corpus("pp-bench-window-", lambda settings, pdfs: measure(settings, pdfs, splits, args.candidates))
    print(f"\n{result['questions']} answerable questions ({', '.join(splits)})")
    print(f"{'mode':<40}{'recall@5':>10}{'mean sim top15':>16}{'chunks embedded':>17}")
    for mode, recall in result["recall_at_5"].items():
        cost = result["chunks_embedded_per_question"].get(mode, "")
        print(f"{mode:<40}{recall:>10}{result['mean_similarity_top15'][mode]:>16}{cost:>17}")
    print(f"embedding: {result['embed_s_per_chunk']} s per chunk (this machine, as loaded)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
