"""Ingest throughput, side by side in one run.

    pip install -e ".[bench]" && python bench/ingest.py [--pages 60] [--docs 4]
    policypal bench ingest --real [...]   # real filings through the whole stack: bench/ingest_real.py

1. parse + chunk: PolicyPal (PyMuPDF + our splitter) vs LangChain (PyPDFLoader +
   RecursiveCharacterTextSplitter, 1000/150) on the same multi-page PDFs → pages/s, ratio.
2. end to end: parse + chunk + embed + store (real embedded Postgres, the production SQL) vs
   the embedder alone on the same chunks → pipeline overhead as a share of the time.
Per-document timings are reported as p50/p99; results go to bench/results/ingest.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import psutil
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate

from bench.harness import admin_url, percentile
from services.ingest.chunker import chunk_pages
from services.ingest.parse import parse_document
from shared.config import Settings
from shared.db import documents as docs
from shared.db.pool import open_database, tenant_tx
from shared.db.tenants import ensure_tenant
from shared.embeddings.provider import get_embedder
from shared.runtime.platform import start_platform

ROOT = Path(__file__).resolve().parent.parent


def make_corpus(folder: Path, n_docs: int, pages: int) -> list[Path]:
    """Multi-page PDFs built from the example texts, each page a different mix of their paragraphs."""
    paragraphs = []
    for source in sorted((ROOT / "examples" / "texts").glob("*.md")):
        paragraphs += [p.strip() for p in source.read_text().split("\n\n") if not p.startswith("#")]
    styles = getSampleStyleSheet()
    paths = []
    for d in range(n_docs):
        story = []
        for page in range(pages):
            story.append(Paragraph(f"Section {d}.{page}", styles["Heading2"]))
            for k in range(5):
                story.append(Paragraph(paragraphs[(d * 7 + page * 3 + k) % len(paragraphs)], styles["BodyText"]))
            story.append(PageBreak())
        path = folder / f"corpus-{d}.pdf"
        SimpleDocTemplate(str(path), pagesize=A4).build(story)
        paths.append(path)
    return paths


def ours(paths: list[Path]) -> tuple[list[float], int, int, list]:
    times, pages, chunks, results = [], 0, 0, []
    for path in paths:
        started = time.perf_counter()
        parsed = parse_document(path.read_bytes(), path.name, max_pages=5000)
        pieces = chunk_pages(parsed.pages, 1000, 150)
        times.append(time.perf_counter() - started)
        pages += parsed.page_count
        chunks += len(pieces)
        results.append((parsed, pieces))
    return times, pages, chunks, results


def langchain(paths: list[Path]) -> tuple[list[float], int, int]:
    from langchain_community.document_loaders import PyPDFLoader
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=150)
    times, pages, chunks = [], 0, 0
    for path in paths:
        started = time.perf_counter()
        documents = PyPDFLoader(str(path)).load()
        pieces = splitter.split_documents(documents)
        times.append(time.perf_counter() - started)
        pages += len(documents)
        chunks += len(pieces)
    return times, pages, chunks


async def end_to_end(paths: list[Path], settings: Settings) -> dict:
    embedder = get_embedder(settings)
    embedder.embed(["warm up"])
    db = await open_database(settings)
    tenant, user = uuid.uuid4(), "bench"
    await ensure_tenant(admin_url(settings), tenant, "bench", user)
    total, embed_only, per_doc = 0.0, 0.0, []
    try:
        for path in paths:
            data = path.read_bytes()
            started = time.perf_counter()
            parsed = parse_document(data, path.name, max_pages=5000)
            pieces = chunk_pages(parsed.pages, 1000, 150)
            vectors = await asyncio.to_thread(embedder.embed, [c.text for c in pieces])
            async with tenant_tx(db, tenant, user) as conn:
                row, _ = await docs.insert_document(
                    conn,
                    {
                        "id": uuid.uuid4(),
                        "tenant_id": tenant,
                        "user_id": user,
                        "title": path.stem,
                        "version": "1",
                        "doc_type": "regulatory_source",
                        "set_id": None,
                        "source_type": "bench",
                        "filename": path.name,
                        "mime": parsed.mime,
                        "sha256": uuid.uuid4().hex,
                        "byte_size": len(data),
                        "object_key": path.name,
                        "visibility": "private",
                    },
                )
                await docs.replace_chunks(conn, row, pieces, vectors)
            elapsed = time.perf_counter() - started
            per_doc.append(elapsed)
            total += elapsed
            started = time.perf_counter()
            embedder.embed([c.text for c in pieces])
            embed_only += time.perf_counter() - started
    finally:
        await db.close()
    return {"total_s": total, "embed_only_s": embed_only, "per_doc": per_doc}


def main(argv: list[str] | None = None) -> int:
    if argv and argv[0] == "--real":
        from bench import ingest_real

        return ingest_real.main(argv[1:])
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=4)
    parser.add_argument("--pages", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds of both parsers")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "ingest.json")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="pp-bench-ingest-"))
    paths = make_corpus(work, args.docs, args.pages)

    ours(paths[:1])  # warm imports and caches for both sides
    langchain(paths[:1])
    # Interleaved rounds and medians: a burst of machine noise hits both sides, not one.
    our_times, lc_times, round_ratios = [], [], []
    for _ in range(args.rounds):
        ours_round, our_pages, our_chunks, _ = ours(paths)
        lc_round, lc_pages, lc_chunks = langchain(paths)
        our_times += ours_round
        lc_times += lc_round
        round_ratios.append(sum(lc_round) / sum(ours_round))
    our_pps = our_pages / len(paths) / statistics.median(our_times)
    lc_pps = lc_pages / len(paths) / statistics.median(lc_times)

    platform = start_platform(Settings(nats_url=None, database_url=None, database_admin_url=None), work / "platform")
    try:
        settings = platform.settings(Settings(nats_url=None, database_url=None, database_admin_url=None))
        e2e = asyncio.run(end_to_end(paths, settings))
    finally:
        platform.stop()
    overhead = (e2e["total_s"] - e2e["embed_only_s"]) / e2e["total_s"]
    result = {
        "corpus": {"docs": args.docs, "pages_per_doc": args.pages},
        "parse_chunk": {
            "policypal": {
                "pages_per_s": round(our_pps, 1),
                "chunks_per_s": round(our_chunks / len(paths) / statistics.median(our_times), 1),
                "chunks": our_chunks,
                "p50_doc_ms": round(statistics.median(our_times) * 1000, 1),
                "p99_doc_ms": round(percentile(our_times, 99) * 1000, 1),
            },
            "langchain": {
                "pages_per_s": round(lc_pps, 1),
                "chunks_per_s": round(lc_chunks / len(paths) / statistics.median(lc_times), 1),
                "chunks": lc_chunks,
                "p50_doc_ms": round(statistics.median(lc_times) * 1000, 1),
                "p99_doc_ms": round(percentile(lc_times, 99) * 1000, 1),
            },
            "speedup": round(our_pps / lc_pps, 2),
            "speedup_per_round": [round(r, 2) for r in round_ratios],
        },
        "end_to_end": {
            "pages_per_s": round(our_pages / e2e["total_s"], 2),
            "chunks_per_s": round(our_chunks / e2e["total_s"], 2),
            "embedder_share": round(1 - overhead, 3),
            "pipeline_overhead": round(overhead, 3),
            "p50_doc_s": round(statistics.median(e2e["per_doc"]), 2),
            "p99_doc_s": round(percentile(e2e["per_doc"], 99), 2),
        },
        "rss_mb_with_model": round(psutil.Process().memory_info().rss / 2**20, 1),
    }
    pc = result["parse_chunk"]
    print(f"{'parse+chunk':<14}{'pages/s':>10}{'chunks/s':>10}{'p50 doc ms':>12}{'p99 doc ms':>12}")
    for name in ("policypal", "langchain"):
        r = pc[name]
        print(f"{name:<14}{r['pages_per_s']:>10}{r['chunks_per_s']:>10}{r['p50_doc_ms']:>12}{r['p99_doc_ms']:>12}")
    print(f"speed-up (pages/s, median per document): {pc['speedup']}x; per round: {pc['speedup_per_round']}")
    e = result["end_to_end"]
    print(
        f"end to end: {e['pages_per_s']} pages/s, {e['chunks_per_s']} chunks/s, p50 {e['p50_doc_s']} s/doc; "
        f"embedder share {e['embedder_share']:.1%}, overhead {e['pipeline_overhead']:.1%}"
    )
    print(f"process RSS with model: {result['rss_mb_with_model']} MB")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
