"""Retrieval quality and confidence calibration on a labelled evaluation set (docs/architecture.md §6).

    .venv/bin/python -m bench.retrieval_eval

Corpus: the 22 public documents of examples/eval (licence texts turned into PDFs by
examples/eval/make_eval_pdfs.py, plus the example PDFs), ingested through the real ingest
worker over the bus contract (object store + `pp.cmd.ingest`: parse → chunk → embed → store).
Questions: the dev split (shared/eval_split.py) of examples/eval/questions.json — answerable
ones name their document and a distinctive substring of the answering passage; unanswerable
ones are off-topic or about things the corpus does not say.

Measured with the production search functions (services/retrieval/search.py, RLS on):
1. recall@5 (and MRR@5) of vector-only vs hybrid (RRF) search over all documents: a question is
   answered when one of the top 5 chunks is from its document and contains its answer.
2. similarity distributions, answerable vs unanswerable: top-1, mean of the top 5, the
   similarity of the chunk holding the answer, and the statistic the actions turn into a
   confidence tier — the mean similarity of the chunks an unscoped search returns
   (total_k = 15, adaptive-k floor applied).
3. calibration for this embedding model:
   - `min_similarity` (adaptive-k floor): the 5th percentile of answer-chunk similarities,
     rounded down to 0.05, so ≥ 95 % of answering chunks survive the cut;
   - `confidence_medium`: the threshold on the tier statistic with the best balanced accuracy
     (answerable ≥ t vs unanswerable < t);
   - `confidence_high`: just above the highest unanswerable value (no off-topic question is
     rated high), and at least medium + 0.05.
Prints tables and writes bench/results/retrieval_eval.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import re
import tempfile
import time
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from bench.harness import admin_url, percentile
from examples.eval.make_eval_pdfs import DOCUMENTS, build_corpus
from services.ingest import worker as ingest_worker
from services.retrieval import search
from shared.bus.connection import connect_bus
from shared.bus.ingest_jobs import submit_ingest
from shared.config import Settings
from shared.contracts import ChunkHit
from shared.db.pool import Database, open_database, tenant_tx
from shared.db.tenants import ensure_tenant
from shared.embeddings.provider import get_embedder
from shared.eval_split import split_of
from shared.runtime.embedded import free_port
from shared.runtime.platform import start_platform
from shared.runtime.service import Infra

T = TypeVar("T")

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "examples" / "eval" / "questions.json"
RECALL_K = 5
TIER_TOTAL_K = 15  # Settings.total_k: what an unscoped inquire search returns at most
OLD = {"min_similarity": 0.2, "confidence_high": 0.55, "confidence_medium": 0.35}
SEEDS = {"min_similarity": 0.2, "confidence_high": 0.75, "confidence_medium": 0.5}


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


async def ingest_all(infra: Infra, tenant: uuid.UUID, user: str, pdfs: dict[str, Path]) -> dict[str, uuid.UUID]:
    """Submit every PDF over the public bus contract and wait until each is ready."""
    ids = {}
    for slug, path in pdfs.items():
        title, _, doc_type = DOCUMENTS[slug]
        ids[slug] = uuid.uuid4()
        await submit_ingest(infra.bus, tenant, user, path, title=title, doc_type=doc_type, document_id=ids[slug])
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        async with tenant_tx(infra.db, tenant, user) as conn:
            rows = await (
                await conn.execute("SELECT id, status, error FROM documents WHERE id = ANY(%s)", (list(ids.values()),))
            ).fetchall()
        failed = [r for r in rows if r["status"] == "failed"]
        if failed:
            raise RuntimeError(f"ingest failed: {failed}")
        if len(rows) == len(ids) and all(r["status"] == "ready" for r in rows):
            return ids
        await asyncio.sleep(0.5)
    raise TimeoutError("ingest did not finish")


async def answer_chunks(db: Database, tenant: uuid.UUID, user: str, doc_id: uuid.UUID, answer: str) -> list[np.ndarray]:
    """Embeddings of the document's chunks that contain the answer."""
    async with tenant_tx(db, tenant, user) as conn:
        rows = await (
            await conn.execute("SELECT text, embedding FROM chunks WHERE document_id = %s", (doc_id,))
        ).fetchall()
    wanted = normalise(answer)
    return [np.asarray(r["embedding"].to_numpy(), dtype=np.float32) for r in rows if wanted in normalise(r["text"])]


def rank_of_answer(hits: list[ChunkHit], doc_id: uuid.UUID, answer: str) -> int | None:
    for rank, hit in enumerate(hits, 1):
        if hit.document_id == doc_id and normalise(answer) in normalise(hit.text):
            return rank
    return None


def stats(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    return {
        "min": round(min(values), 3),
        "p5": round(percentile(values, 5), 3),
        "p25": round(percentile(values, 25), 3),
        "p50": round(percentile(values, 50), 3),
        "p75": round(percentile(values, 75), 3),
        "p95": round(percentile(values, 95), 3),
        "max": round(max(values), 3),
    }


def tiers(values: list[float], high: float, medium: float) -> dict[str, float]:
    n = max(1, len(values))
    return {
        "high": round(sum(v >= high for v in values) / n, 3),
        "medium": round(sum(medium <= v < high for v in values) / n, 3),
        "low": round(sum(v < medium for v in values) / n, 3),
    }


def calibrate(
    answer_sims: list[float], top5_a: list[float], top5_u: list[float], tier_a: list[float], tier_u: list[float]
) -> dict:
    """Floor from the answer chunks; medium from the floor-free mean top-5 (what compare/audit see);
    high above every unanswerable question on both statistics."""
    floor = math.floor(percentile(answer_sims, 5) * 20) / 20
    grid = [round(t, 2) for t in np.arange(0.0, 1.0, 0.01)]
    accuracy = [(np.mean([v >= t for v in top5_a]) + np.mean([v < t for v in top5_u])) / 2 for t in grid]
    best = max(accuracy)
    plateau = [t for t, a in zip(grid, accuracy, strict=True) if a == best]
    medium = round(float(plateau[0] + plateau[-1]) / 2, 2)
    above = max(max(tier_u), max(top5_u))
    high = round(max(math.floor(above * 100 + 1) / 100, medium + 0.05), 2)
    return {
        "min_similarity": round(floor, 2),
        "confidence_medium": medium,
        "confidence_high": high,
        "balanced_accuracy_at_medium": round(float(best), 3),
    }


async def evaluate(settings: Settings, pdfs: dict[str, Path], splits: tuple[str, ...] = ("dev",)) -> dict:
    tenant, user = uuid.uuid4(), "eval"
    await ensure_tenant(admin_url(settings), tenant, "retrieval eval", user)
    bus = await connect_bus(settings, name="retrieval-eval")
    db = await open_database(settings)
    infra = Infra(settings=settings, bus=bus, db=db)
    stop = asyncio.Event()
    worker = asyncio.create_task(ingest_worker.serve(infra, stop))
    try:
        started = time.perf_counter()
        doc_ids = await ingest_all(infra, tenant, user, pdfs)
        ingest_s = time.perf_counter() - started
        stop.set()
        await asyncio.wait_for(worker, 30)
        async with tenant_tx(db, tenant, user) as conn:
            counts = {
                r["id"]: r["chunk_count"]
                for r in await (await conn.execute("SELECT id, chunk_count FROM documents")).fetchall()
            }

        data = json.loads(QUESTIONS.read_text())
        # Thresholds are tuned on the dev split only; the test split measures them (bench/answer_eval.py).
        answerable = [q for q in data["answerable"] if split_of(q["id"]) in splits]
        unanswerable = [q for q in data["unanswerable"] if split_of(q["id"]) in splits]
        questions = [q["question"] for q in answerable + unanswerable]
        vectors = get_embedder(settings).embed(questions)
        qvec = dict(zip(questions, vectors, strict=True))

        async def run(q: str, *, total_k: int, floor: float, hybrid: bool) -> list[ChunkHit]:
            async with tenant_tx(db, tenant, user) as conn:
                return await search.search_all(conn, qvec[q], q, total_k=total_k, floor=floor, hybrid=hybrid)

        per_question, missing = [], []
        recall: dict[str, list[float]] = {"vector": [], "hybrid": []}
        mrr: dict[str, list[float]] = {"vector": [], "hybrid": []}
        for item in answerable:
            doc_id = doc_ids[item["doc"]]
            holders = await answer_chunks(db, tenant, user, doc_id, item["answer"])
            if not holders:
                missing.append(item["id"])
                continue
            row = {"id": item["id"], "doc": item["doc"]}
            for mode in ("vector", "hybrid"):
                hits = await run(item["question"], total_k=RECALL_K, floor=-1.0, hybrid=mode == "hybrid")
                rank = rank_of_answer(hits, doc_id, item["answer"])
                recall[mode].append(rank is not None)
                mrr[mode].append(1 / rank if rank else 0.0)
                row[f"{mode}_rank"] = rank
            top = await run(item["question"], total_k=RECALL_K, floor=-1.0, hybrid=False)
            row["top1"] = top[0].similarity
            row["mean_top5"] = float(np.mean([h.similarity for h in top]))
            row["answer_similarity"] = max(float(qvec[item["question"]] @ v) for v in holders)
            per_question.append(row)

        off_topic = []
        for item in unanswerable:
            top = await run(item["question"], total_k=RECALL_K, floor=-1.0, hybrid=False)
            off_topic.append(
                {
                    "id": item["id"],
                    "top1": top[0].similarity,
                    "mean_top5": float(np.mean([h.similarity for h in top])),
                }
            )

        answer_sims = [r["answer_similarity"] for r in per_question]
        floor = math.floor(percentile(answer_sims, 5) * 20) / 20

        async def tier_statistic(q: str, floor: float) -> float:
            hits = await run(q, total_k=TIER_TOTAL_K, floor=floor, hybrid=False)
            return float(np.mean([h.similarity for h in hits])) if hits else 0.0

        tier_a = [await tier_statistic(item["question"], floor) for item in answerable if item["id"] not in missing]
        tier_u = [await tier_statistic(item["question"], floor) for item in unanswerable]
        top5_a = [r["mean_top5"] for r in per_question]
        top5_u = [r["mean_top5"] for r in off_topic]
        chosen = calibrate(answer_sims, top5_a, top5_u, tier_a, tier_u)
        old_a = [await tier_statistic(item["question"], OLD["min_similarity"]) for item in answerable]
        old_u = [await tier_statistic(item["question"], OLD["min_similarity"]) for item in unanswerable]
    finally:
        if not worker.done():
            stop.set()
            await asyncio.wait_for(worker, 30)
        await bus.close()
        await db.close()

    n = len(per_question)
    return {
        "corpus": {
            "documents": {slug: counts[doc_ids[slug]] for slug in doc_ids},
            "chunks": sum(counts.values()),
            "ingest_s": round(ingest_s, 1),
        },
        "questions": {"answerable": len(answerable), "unanswerable": len(unanswerable), "answer_not_found": missing},
        "recall_at_5": {mode: round(sum(v) / n, 3) for mode, v in recall.items()},
        "mrr_at_5": {mode: round(sum(v) / n, 3) for mode, v in mrr.items()},
        "hybrid_vs_vector": {
            "hybrid_only": [r["id"] for r in per_question if r["hybrid_rank"] and not r["vector_rank"]],
            "vector_only": [r["id"] for r in per_question if r["vector_rank"] and not r["hybrid_rank"]],
        },
        "similarity": {
            "answerable_top1": stats([r["top1"] for r in per_question]),
            "unanswerable_top1": stats([r["top1"] for r in off_topic]),
            "answerable_mean_top5": stats([r["mean_top5"] for r in per_question]),
            "unanswerable_mean_top5": stats([r["mean_top5"] for r in off_topic]),
            "answer_chunk": stats(answer_sims),
            f"answerable_tier_statistic_floor_{floor:.2f}": stats(tier_a),
            f"unanswerable_tier_statistic_floor_{floor:.2f}": stats(tier_u),
        },
        "calibrated": chosen,
        "tiers": {
            "calibrated, inquire statistic (floor applied)": {
                "answerable": tiers(tier_a, chosen["confidence_high"], chosen["confidence_medium"]),
                "unanswerable": tiers(tier_u, chosen["confidence_high"], chosen["confidence_medium"]),
            },
            "calibrated, mean top-5 (no floor)": {
                "answerable": tiers(top5_a, chosen["confidence_high"], chosen["confidence_medium"]),
                "unanswerable": tiers(top5_u, chosen["confidence_high"], chosen["confidence_medium"]),
            },
            "previous_defaults_0.55_0.35": {
                "answerable": tiers(old_a, OLD["confidence_high"], OLD["confidence_medium"]),
                "unanswerable": tiers(old_u, OLD["confidence_high"], OLD["confidence_medium"]),
            },
            "openai_seeds_0.75_0.5": {
                "answerable": tiers(old_a, SEEDS["confidence_high"], SEEDS["confidence_medium"]),
                "unanswerable": tiers(old_u, SEEDS["confidence_high"], SEEDS["confidence_medium"]),
            },
        },
        "per_question": per_question,
        "unanswerable": off_topic,
    }


def report(result: dict) -> None:
    c = result["corpus"]
    print(f"corpus: {len(c['documents'])} documents, {c['chunks']} chunks, ingested in {c['ingest_s']} s")
    q = result["questions"]
    print(
        f"questions: {q['answerable']} answerable, {q['unanswerable']} unanswerable; answer not in any chunk: "
        f"{q['answer_not_found'] or 'none'}"
    )
    print(f"\n{'search':<10}{'recall@5':>10}{'MRR@5':>8}")
    for mode in ("vector", "hybrid"):
        print(f"{mode:<10}{result['recall_at_5'][mode]:>10.3f}{result['mrr_at_5'][mode]:>8.3f}")
    hv = result["hybrid_vs_vector"]
    print(f"found only by hybrid: {hv['hybrid_only'] or '-'}; only by vector: {hv['vector_only'] or '-'}")
    print(f"\n{'cosine similarity':<44}" + "".join(f"{k:>7}" for k in ("min", "p5", "p25", "p50", "p75", "p95", "max")))
    for name, s in result["similarity"].items():
        print(f"{name:<44}" + "".join(f"{s[k]:>7.3f}" for k in ("min", "p5", "p25", "p50", "p75", "p95", "max")))
    print(f"\ncalibrated: {result['calibrated']}")
    print(f"\n{'tier shares':<48}{'':<14}{'high':>7}{'medium':>8}{'low':>6}")
    for name, split in result["tiers"].items():
        for kind, t in split.items():
            print(f"{name:<48}{kind:<14}{t['high']:>7.2f}{t['medium']:>8.2f}{t['low']:>6.2f}")


def on_eval_corpus(prefix: str, measure: Callable[[Settings, dict[str, Path]], Coroutine[Any, Any, T]]) -> T:
    """`measure` run on a fresh embedded platform with the examples/eval PDFs built beside it. A
    document is `ready` only once every chunk vector is stored, since both measures read them."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    pdfs = build_corpus(work / "pdfs")
    base = Settings(
        nats_url=None, database_url=None, database_admin_url=None, nats_port=free_port(), ingest_ready_at="vectors"
    )
    platform = start_platform(base, work / "platform")
    try:
        return asyncio.run(measure(platform.settings(base), pdfs))
    finally:
        platform.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "retrieval_eval.json")
    parser.add_argument("--split", choices=("dev", "test", "both"), default="dev", help="questions to calibrate on")
    args = parser.parse_args(argv)
    splits = ("dev", "test") if args.split == "both" else (args.split,)
    # Similarities are read from the stored chunk vectors (on_eval_corpus: `ready` only once all are stored).
    result = on_eval_corpus("pp-bench-eval-", lambda settings, pdfs: evaluate(settings, pdfs, splits))
    report(result)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
