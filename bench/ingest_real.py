"""Ingest of real filings through the whole default stack, before vs after, in one run (issue 28).

    policypal bench ingest --real [--before cf9e84e] [--after COMMIT] [--docs 13]
                                  [--variants before,after,after-words]

Corpus: the real SEC 10-Q filings vendored in evals/real/sec-10q/docs (13 PDFs, 579 pages, MIT),
and a long regulation: the whole GDPR (recitals and all 99 articles, evals/real/gdpr/gdpr-full.txt,
EUR-Lex reuse notice there) laid out as a 92-page PDF (`--no-regulation` leaves it out).
Each variant is a real `policypal up` (embedded NATS + Postgres, every worker a process, the
embedding service included) in a fresh data directory, one after the other: `before` is the
commit given (exported with `git archive`, run with this environment), `after` this checkout.
All filings are uploaded together over HTTP; the progress events on `pp.evt.ingest.>` are
timestamped as they arrive, which gives:
- pages/s from the first upload to the last `ready` (searchable), and to the last `done`
  (sentence vectors stored too; the same moment as `ready` before the two-phase ingest);
- the time of each stage summed over documents (queued, parse, OCR, chunk, embed chunks,
  store, embed sentences; `before` embeds chunks and sentences in one stage);
- the embedding service's utilisation: its CPU seconds over the wall time (cores busy), and
  the whole machine's CPU count for scale;
- memory after the set: PSS of the embedding service and of the whole stack;
- answer quality guard: every 10-Q question searched (vector, all documents, top 5) after the
  set is complete; the top 5 (filing, chunk ordinal) compared between variants, and recall@5 on
  the labelled examples/eval questions (bench/retrieval_eval.py's measure).
Variant `after-words` runs this checkout with PP_INGEST_READY_AT=words: `ready` once the chunks
are stored (searchable by their words), the chunk vectors after.
The machine is shared; compare the variants of one run with each other, not with other runs.
Writes bench/results/ingest_real.json.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import httpx
import nats
import psutil
from nats.aio.msg import Msg

from bench.lean import TENANT, USER, client_of, export_commit, memory, recall_at_5, role_of, stack_processes
from examples.eval.make_eval_pdfs import build_corpus, build_pdf
from shared.contracts import SearchRequest, SearchResponse
from shared.runtime.launcher import LaunchedSystem, launch_up

ROOT = Path(__file__).resolve().parent.parent
FILINGS = ROOT / "evals" / "real" / "sec-10q"
REGULATION = ROOT / "evals" / "real" / "gdpr" / "gdpr-full.txt"
# main just before issue 28: sentence vectors embedded with the chunks, before `ready`.
BASELINE = "cf9e84e"
STAGE_NAMES = {
    ("processing", "parsing"): "parse",
    ("processing", "ocr"): "ocr",
    ("processing", "chunking"): "chunk",
    ("processing", "embedding"): "embed chunks",
    ("processing", "storing"): "store",
    ("ready", "embedding"): "embed chunks (after ready)",
    ("ready", "sentences"): "embed sentences",
}
# Variants: which code, and the settings it runs with. `after-words` is this code with
# PP_INGEST_READY_AT=words (ready when searchable by words; vectors follow).
VARIANT_ENV = {"before": {}, "after": {}, "after-words": {"PP_INGEST_READY_AT": "words"}}


def filings(count: int) -> list[Path]:
    return sorted((FILINGS / "docs").glob("*.pdf"))[:count]


def regulation_pdf(work: Path) -> Path:
    """The whole GDPR as a PDF, built the way bench/real_sets.py builds its selected articles."""
    target = work / "General Data Protection Regulation.pdf"
    build_pdf(REGULATION, target, "General Data Protection Regulation")
    return target


def page_count(path: Path) -> int:
    import pymupdf

    with pymupdf.open(path) as doc:
        return doc.page_count


class Recorder:
    """Every ingest progress event with its arrival time, per document."""

    def __init__(self) -> None:
        self.events: dict[str, list[tuple[float, str, str]]] = defaultdict(list)

    async def on_msg(self, msg: Msg) -> None:
        event = json.loads(msg.data)
        self.events[event["document_id"]].append((time.perf_counter(), event["status"], event["stage"]))

    def first(self, doc_id: str, test: Callable[[str, str], bool]) -> float | None:
        return next((t for t, status, stage in self.events.get(doc_id, []) if test(status, stage)), None)


def ready_at(rec: Recorder, doc_id: str) -> float | None:
    return rec.first(doc_id, lambda status, stage: status == "ready")


def done_at(rec: Recorder, doc_id: str) -> float | None:
    return rec.first(doc_id, lambda status, stage: status == "ready" and stage == "done")


def stage_seconds(rec: Recorder, uploaded: dict[str, float], two_phase: bool) -> dict[str, float]:
    """Seconds spent in each stage, summed over documents (a stage lasts until the next event
    of another stage)."""
    totals: dict[str, float] = defaultdict(float)
    for doc_id, events in rec.events.items():
        marks = [(uploaded[doc_id], "queued")]
        for t, status, stage in events:
            name = STAGE_NAMES.get((status, stage), "done" if stage == "done" else None)
            if name == "embed chunks" and not two_phase:
                name = "embed chunks + sentences"
            if name and name != marks[-1][1]:
                marks.append((t, name))
        for (t0, name), (t1, _) in zip(marks, marks[1:], strict=False):
            totals[name] += t1 - t0
    return {k: round(v, 2) for k, v in sorted(totals.items())}


def embedder_process(system: LaunchedSystem) -> psutil.Process:
    procs = stack_processes(system.process.pid, system.data_dir)
    return next(p for p in procs if role_of(p) == "embedder")


def cpu_seconds(proc: psutil.Process) -> float:
    times = proc.cpu_times()
    return times.user + times.system


def upload(client: httpx.Client, path: Path) -> str:
    with path.open("rb") as fh:
        response = client.post("/v1/documents", files={"file": (path.name, fh)}, data={"title": path.stem})
    response.raise_for_status()
    return response.json()["id"]


async def top5(system: LaunchedSystem, questions: list[str]) -> list[list[str]]:
    nc = await nats.connect(f"nats://127.0.0.1:{system.env['PP_NATS_PORT']}")
    found = []
    try:
        for question in questions:
            request = SearchRequest(
                tenant_id=TENANT, user_id=USER, query_text=question, total_k=5, min_similarity=-1.0, hybrid=False
            )
            msg = await nc.request("pp.rpc.retrieval.search", request.model_dump_json().encode(), timeout=120)
            hits = SearchResponse.model_validate_json(msg.data).chunks
            found.append([f"{h.title}#{h.ordinal}" for h in hits])
    finally:
        await nc.close()
    return found


def questions(paths: list[Path]) -> list[str]:
    names = {p.stem for p in paths}
    rows = list(csv.DictReader((FILINGS / "qna_data.csv").open(encoding="utf-8-sig")))
    keep = []
    for row in rows:
        patterns = [p.strip().strip("*") for p in row["Source Docs"].split(",")]
        if all(any(pattern in name for name in names) for pattern in patterns):
            keep.append(row["Question"])
    return keep


async def ingest_set(system: LaunchedSystem, client: httpx.Client, paths: list[Path], timeout_s: float) -> dict:
    rec = Recorder()
    nc = await nats.connect(f"nats://127.0.0.1:{system.env['PP_NATS_PORT']}")
    await nc.subscribe("pp.evt.ingest.>", cb=rec.on_msg)
    embedder = embedder_process(system)
    cpu0 = cpu_seconds(embedder)
    started = time.perf_counter()
    uploaded: dict[str, float] = {}
    ids = []
    for path in paths:
        doc_id = await asyncio.to_thread(upload, client, path)
        uploaded[doc_id] = time.perf_counter()
        ids.append(doc_id)
    deadline = started + timeout_s
    cpu_at_ready = None
    while time.perf_counter() < deadline:
        failed = [d for d in ids if rec.first(d, lambda status, stage: status == "failed")]
        if failed:
            raise RuntimeError(f"documents failed: {failed}")
        if cpu_at_ready is None and all(ready_at(rec, d) for d in ids):
            cpu_at_ready = cpu_seconds(embedder)
        if all(done_at(rec, d) for d in ids):
            break
        await asyncio.sleep(0.1)
    else:
        raise TimeoutError("the set did not finish in time")
    cpu1 = cpu_seconds(embedder)
    await nc.close()
    # Every document was ready and done when the loop above ended.
    last_ready = max(t for d in ids if (t := ready_at(rec, d)) is not None) - started
    last_done = max(t for d in ids if (t := done_at(rec, d)) is not None) - started
    two_phase = any(stage == "sentences" for events in rec.events.values() for _, _, stage in events)
    return {
        "ready_s": round(last_ready, 2),
        "done_s": round(last_done, 2),
        "stages_doc_s": stage_seconds(rec, uploaded, two_phase),
        "embedder_cores_busy_to_ready": round(((cpu_at_ready or cpu1) - cpu0) / last_ready, 2),
        "embedder_cores_busy_to_done": round((cpu1 - cpu0) / last_done, 2),
        "doc_ids": ids,
    }


def run_variant(name: str, code: Path | None, paths: list[Path], pages: int, eval_pdfs: dict) -> dict:
    data_dir = Path(tempfile.mkdtemp(prefix=f"pp-bench-ingest-real-{name}-"))
    env = ({"PYTHONPATH": str(code)} if code else {}) | VARIANT_ENV[name]
    system = launch_up(data_dir, env, timeout_s=300, cwd=code)
    try:
        client = client_of(system)
        result = asyncio.run(ingest_set(system, client, paths, timeout_s=3600))
        result["pages"] = pages
        result["pages_per_s_ready"] = round(pages / result["ready_s"], 2)
        result["pages_per_s_done"] = round(pages / result["done_s"], 2)
        result["memory_after_set"] = memory(system.process.pid, data_dir)
        result["top5"] = asyncio.run(top5(system, questions(paths)))
        result["retrieval"] = recall_at_5(system, client, eval_pdfs)
        result["cpu_count"] = psutil.cpu_count()
        result["load_avg_1m_at_end"] = round(psutil.getloadavg()[0], 2)
    finally:
        system.stop()
    return result


def report(results: dict) -> None:
    names = list(results)
    rows = [
        ("pages/s, upload → last ready", lambda r: r["pages_per_s_ready"]),
        ("pages/s, upload → last done", lambda r: r["pages_per_s_done"]),
        ("seconds to last ready", lambda r: r["ready_s"]),
        ("seconds to last done", lambda r: r["done_s"]),
        ("embedder cores busy, to ready", lambda r: r["embedder_cores_busy_to_ready"]),
        ("embedder cores busy, to done", lambda r: r["embedder_cores_busy_to_done"]),
        ("embedder PSS after set (MB)", lambda r: r["memory_after_set"]["by_process"]["embedder"]["pss_mb"]),
        ("stack PSS after set (MB)", lambda r: r["memory_after_set"]["total_pss_mb"]),
        ("recall@5 examples/eval", lambda r: r["retrieval"]["recall_at_5"]),
    ]
    print(f"\n{'measure':<36}" + "".join(f"{n:>12}" for n in names))
    for label, get in rows:
        print(f"{label:<36}" + "".join(f"{get(results[n]):>12}" for n in names))
    stages = sorted({s for n in names for s in results[n]["stages_doc_s"]})
    print("\nseconds per stage, summed over documents:")
    for stage in stages:
        print(f"  {stage:<34}" + "".join(f"{results[n]['stages_doc_s'].get(stage, '-'):>12}" for n in names))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default=BASELINE, help="commit of the baseline")
    parser.add_argument("--docs", type=int, default=13, help="how many of the filings (sorted by name)")
    parser.add_argument("--after", help="commit to measure as `after` (default: this checkout as it is)")
    parser.add_argument("--no-regulation", action="store_true", help="the filings only, without the GDPR")
    parser.add_argument("--variants", default="before,after", help=f"comma-separated, of {', '.join(VARIANT_ENV)}")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "ingest_real.json")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="pp-bench-ingest-eval-"))
    paths = filings(args.docs) + ([] if args.no_regulation else [regulation_pdf(work)])
    pages = sum(page_count(p) for p in paths)
    eval_pdfs = build_corpus(work)
    results: dict = {}
    for name in args.variants.split(","):
        commit = args.before if name == "before" else args.after
        code = export_commit(commit) if commit else None
        print(f"{name}: {len(paths)} documents, {pages} pages …", flush=True)
        results[name] = run_variant(name, code, paths, pages, eval_pdfs)
    for name in [n for n in results if n != "before" and "before" in results]:
        before, after = results["before"]["top5"], results[name]["top5"]
        same = sum(a == b for a, b in zip(before, after, strict=True))
        results[f"top5_identical_{name}"] = {"questions": len(before), "identical": same}
        print(f"\n10-Q questions with identical top-5, before and {name}: {same}/{len(before)}")
    report({n: r for n, r in results.items() if n in VARIANT_ENV})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
