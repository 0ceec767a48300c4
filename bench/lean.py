"""Lean workers (issue 15): the whole system's memory, start-up, turn latency, ingest throughput and
retrieval quality, before vs after, side by side in one run.

    .venv/bin/pip install -e ".[bench]"      # sentence-transformers, for the old code path
    .venv/bin/python bench/lean.py [--before 3f367ad] [--turns 40] [--out bench/results/lean.json]

Variants, each a real `policypal up` in a fresh data directory, one at a time (the old stack alone
takes ~4.6 GB): `before` runs commit 3f367ad (every process that embeds loads torch and its own
MiniLM), exported with `git archive` and run with this environment; `after-fp32` and `after-int8`
run this checkout with PP_EMBEDDING_PRECISION. For each variant:
1. `up` once cold, stopped, then again on the same data directory: the warm ready time;
2. recall@5 on examples/eval: its PDFs uploaded (the only documents so far), every answerable
   question searched over `pp.rpc.retrieval.search` (vector, all documents, k 5), counted as
   bench/retrieval_eval.py counts it;
3. ingest: the 4 × 60-page PDFs of bench/ingest.py uploaded together over HTTP → pages/s from the
   first upload to the last `ready`;
4. offline inquire turns on the README demo document, POST → terminal `response`, fresh threads;
5. memory after that mixed workload: RSS of every process of `up` (nats-server and Postgres
   included) and the total; PSS too, which counts pages shared between processes once;
6. one more inquire replica started beside the system, after turns: its RSS.
Also, without a system: the cosine of int8 and fp32 ONNX vectors to sentence-transformers' on the
eval chunks. Prints tables and writes JSON. Timings depend on what else the machine runs; the
variants run back to back, so compare them with each other, not with other runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import nats
import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import summary, timed_turn  # noqa: E402
from bench.retrieval_eval import QUESTIONS, RECALL_K, rank_of_answer  # noqa: E402
from examples.eval.make_eval_pdfs import DOCUMENTS, build_corpus  # noqa: E402
from shared.contracts import SearchRequest, SearchResponse  # noqa: E402
from shared.runtime.launcher import LaunchedSystem, launch_up  # noqa: E402

DEMO_QUESTIONS = [
    "How long are job applicant records kept?",
    "How quickly must a breach be notified?",
    "How are hard drives disposed of?",
    "Who owns this policy?",
    "How long is CCTV footage kept?",
]
TENANT = uuid.UUID("00000000-0000-4000-8000-000000000001")
USER = "00000000-0000-4000-8000-0000000000aa"


def role_of(proc: psutil.Process) -> str:
    cmd = proc.cmdline()
    if "policypal.cli" in cmd:
        return cmd[cmd.index("--action") + 1] if "--action" in cmd else cmd[-1]
    return proc.name()


def stack_processes(root_pid: int, data_dir: Path) -> list[psutil.Process]:
    """`up`, its children, and what daemonised out of its tree (pg_ctl's postgres) in its data dir."""
    root = psutil.Process(root_pid)
    found = {p.pid: p for p in [root, *root.children(recursive=True)]}
    for proc in psutil.process_iter():
        try:
            if proc.pid not in found and str(data_dir) in " ".join(proc.cmdline()):
                found |= {p.pid: p for p in [proc, *proc.children(recursive=True)]}
        except psutil.Error:
            continue
    return list(found.values())


def memory(root_pid: int, data_dir: Path) -> dict:
    """RSS and PSS (MB) of every process of the stack."""
    rows = []
    for proc in stack_processes(root_pid, data_dir):
        try:
            info = proc.memory_full_info()
            rows.append({"process": "up" if proc.pid == root_pid else role_of(proc), "pid": proc.pid,
                         "rss_mb": info.rss / 2**20, "pss_mb": info.pss / 2**20})  # fmt: skip
        except psutil.Error:
            continue
    grouped: dict[str, dict[str, float]] = {}
    for row in rows:
        group = grouped.setdefault(row["process"], {"rss_mb": 0.0, "pss_mb": 0.0, "n": 0})
        group["rss_mb"] += row["rss_mb"]
        group["pss_mb"] += row["pss_mb"]
        group["n"] += 1
    return {
        "by_process": {k: {m: round(v, 1) for m, v in g.items()} for k, g in grouped.items()},
        "total_rss_mb": round(sum(r["rss_mb"] for r in rows), 1),
        "total_pss_mb": round(sum(r["pss_mb"] for r in rows), 1),
    }


def client_of(system: LaunchedSystem) -> httpx.Client:
    return httpx.Client(base_url=system.url, headers={"Authorization": f"Bearer {system.token}"}, timeout=300)


def upload(client: httpx.Client, path: Path, title: str, doc_type: str = "regulatory_source") -> str:
    with path.open("rb") as fh:
        response = client.post(
            "/v1/documents", files={"file": (path.name, fh)}, data={"title": title, "doc_type": doc_type}
        )
    response.raise_for_status()
    return response.json()["id"]


def wait_ready(client: httpx.Client, ids: list[str], timeout_s: float = 900) -> None:
    deadline = time.monotonic() + timeout_s
    pending = set(ids)
    while pending and time.monotonic() < deadline:
        for doc_id in list(pending):
            status = client.get(f"/v1/documents/{doc_id}").json()["status"]
            if status == "failed":
                raise RuntimeError(f"document {doc_id} failed to ingest")
            if status == "ready":
                pending.discard(doc_id)
        time.sleep(0.2)
    if pending:
        raise TimeoutError(f"documents not ready: {pending}")


def ingest_throughput(client: httpx.Client, corpus: list[Path], pages: int) -> dict:
    started = time.perf_counter()
    ids = [upload(client, path, f"Benchmark corpus {i}") for i, path in enumerate(corpus)]
    wait_ready(client, ids)
    seconds = time.perf_counter() - started
    return {"pages": pages, "seconds": round(seconds, 2), "pages_per_s": round(pages / seconds, 1)}


def recall_at_5(system: LaunchedSystem, client: httpx.Client, eval_pdfs: dict[str, Path]) -> dict:
    ids = {}
    for slug, path in eval_pdfs.items():
        title, _, doc_type = DOCUMENTS[slug]
        ids[slug] = upload(client, path, title, doc_type)
    wait_ready(client, list(ids.values()))
    answerable = json.loads(QUESTIONS.read_text())["answerable"]

    async def search_all() -> list[bool]:
        nc = await nats.connect(f"nats://127.0.0.1:{system.env['PP_NATS_PORT']}")
        found = []
        try:
            for item in answerable:
                request = SearchRequest(
                    tenant_id=TENANT, user_id=USER, query_text=item["question"], total_k=RECALL_K,
                    min_similarity=-1.0, hybrid=False,
                )  # fmt: skip
                msg = await nc.request("pp.rpc.retrieval.search", request.model_dump_json().encode(), timeout=60)
                hits = SearchResponse.model_validate_json(msg.data).chunks
                found.append(rank_of_answer(hits, uuid.UUID(ids[item["doc"]]), item["answer"]) is not None)
        finally:
            await nc.close()
        return found

    found = asyncio.run(search_all())
    return {"recall_at_5": round(sum(found) / len(found), 3), "questions": len(found)}


def inquire_turns(client: httpx.Client, doc_id: str, turns: int) -> dict:
    def turn(question: str) -> float:
        _, total, event = timed_turn(client, {"message": question, "action": "inquire", "tagged_doc_ids": [doc_id]})
        if event["event"] != "response":
            raise RuntimeError(f"turn ended with {event}")
        return total

    for question in DEMO_QUESTIONS:  # warm every path once
        turn(question)
    return summary([turn(DEMO_QUESTIONS[i % len(DEMO_QUESTIONS)]) for i in range(turns)])


def extra_replica(system: LaunchedSystem, client: httpx.Client, doc_id: str, cwd: Path) -> dict:
    """Start one more inquire worker beside the system, let it take turns, measure it."""
    sibling = next(p for p in psutil.Process(system.process.pid).children(recursive=True) if role_of(p) == "inquire")
    env = {**sibling.environ()}
    log = open(system.data_dir / "extra-replica.log", "w")  # noqa: SIM115 - closed below
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "policypal.cli", "worker", "action", "--action", "inquire"],
        env=env, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while "started" not in (system.data_dir / "extra-replica.log").read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        connected_s = time.perf_counter() - started
        for i in range(12):  # the replicas share one durable consumer: this one takes about half
            timed_turn(client, {"message": DEMO_QUESTIONS[i % 5], "action": "inquire", "tagged_doc_ids": [doc_id]})
        time.sleep(1)
        info = psutil.Process(proc.pid).memory_full_info()
        return {"rss_mb": round(info.rss / 2**20, 1), "pss_mb": round(info.pss / 2**20, 1),
                "started_s": round(connected_s, 2)}  # fmt: skip
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


def run_variant(
    name: str, cwd: Path, env: dict[str, str], corpus: list[Path], pages: int, eval_pdfs: dict[str, Path], turns: int
) -> dict[str, Any]:
    print(f"--- {name}", flush=True)
    data_dir = Path(tempfile.mkdtemp(prefix=f"pp-lean-{name}-"))
    cold = launch_up(data_dir, env, cwd=cwd, timeout_s=600)
    cold.stop()
    system = launch_up(data_dir, env, cwd=cwd, timeout_s=600)
    result: dict[str, Any] = {"up_ready_cold_s": round(cold.ready_s, 2), "up_ready_warm_s": round(system.ready_s, 2)}
    try:
        with client_of(system) as client:
            # Recall first, over the evaluation documents alone (as bench/retrieval_eval.py).
            result["retrieval"] = recall_at_5(system, client, eval_pdfs)
            result["ingest"] = ingest_throughput(client, corpus, pages)
            print(f"  recall {result['retrieval']} ingest {result['ingest']}", flush=True)
            demo = upload(client, ROOT / "examples" / "data-retention-policy.pdf", "Policy", "company_policy")
            wait_ready(client, [demo])
            result["inquire_turn"] = summary_of(inquire_turns(client, demo, turns))
            result["memory"] = memory(system.process.pid, data_dir)
            result["extra_inquire_replica"] = extra_replica(system, client, demo, cwd)
    finally:
        system.stop()
    print(f"  {json.dumps({k: v for k, v in result.items() if k != 'memory'})}", flush=True)
    return result


def summary_of(s: dict) -> dict:
    return {"p50_ms": s["p50_ms"], "p99_ms": s["p99_ms"], "n": s["n"]}


def vector_agreement(eval_pdfs: dict[str, Path]) -> dict:
    """Cosine of the ONNX vectors (int8, fp32) to sentence-transformers' (torch) on the eval chunks."""
    code = f"""
import json, sys, numpy as np
sys.path.insert(0, {str(ROOT)!r})
from pathlib import Path
from services.ingest.chunker import chunk_pages
from services.ingest.parse import parse_document
from shared.embeddings.export import weights_dir
from shared.embeddings.onnx_minilm import OnnxMiniLM
from sentence_transformers import SentenceTransformer
texts = []
for path in {[str(p) for p in eval_pdfs.values()]!r}:
    parsed = parse_document(Path(path).read_bytes(), Path(path).name, max_pages=5000)
    texts += [c.text for c in chunk_pages(parsed.pages, 1000, 150)]
ref = SentenceTransformer(str(weights_dir()), device="cpu").encode(texts, normalize_embeddings=True)
out = {{"chunks": len(texts)}}
for precision in ("fp32", "int8"):
    cos = np.sum(OnnxMiniLM(precision).embed(texts) * ref, axis=1)
    out[precision] = {{"min": round(float(cos.min()), 4), "p1": round(float(np.percentile(cos, 1)), 4),
                       "mean": round(float(cos.mean()), 4)}}
print(json.dumps(out))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def export_commit(commit: str) -> Path:
    target = Path(tempfile.mkdtemp(prefix=f"pp-lean-{commit}-"))
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def report(results: dict) -> None:
    names = list(results["variants"])
    rows = [
        ("total RSS of the stack (MB)", lambda r: r["memory"]["total_rss_mb"]),
        ("total PSS of the stack (MB)", lambda r: r["memory"]["total_pss_mb"]),
        ("one more inquire replica RSS (MB)", lambda r: r["extra_inquire_replica"]["rss_mb"]),
        ("`up` ready, warm (s)", lambda r: r["up_ready_warm_s"]),
        ("`up` ready, cold (s)", lambda r: r["up_ready_cold_s"]),
        ("inquire turn p50 (ms)", lambda r: r["inquire_turn"]["p50_ms"]),
        ("inquire turn p99 (ms)", lambda r: r["inquire_turn"]["p99_ms"]),
        ("ingest pages/s (4 × 60 pages)", lambda r: r["ingest"]["pages_per_s"]),
        ("recall@5, examples/eval", lambda r: r["retrieval"]["recall_at_5"]),
    ]
    print(f"\n{'measure':<38}" + "".join(f"{n:>14}" for n in names))
    for label, get in rows:
        print(f"{label:<38}" + "".join(f"{get(results['variants'][n]):>14}" for n in names))
    print("\nRSS by process (MB):")
    processes = sorted({p for n in names for p in results["variants"][n]["memory"]["by_process"]})
    for proc in processes:
        cells = []
        for n in names:
            row = results["variants"][n]["memory"]["by_process"].get(proc)
            cells.append(f"{row['rss_mb']:.0f}" + (f" ({row['n']})" if row["n"] > 1 else "") if row else "-")
        print(f"{proc:<38}" + "".join(f"{c:>14}" for c in cells))
    print("\nvector agreement with sentence-transformers (cosine):", json.dumps(results["vector_agreement"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", default="3f367ad", help="commit of the old code path")
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--pages", type=int, default=60)
    parser.add_argument("--docs", type=int, default=4)
    parser.add_argument("--variants", default="before,after-fp32,after-int8")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "lean.json")
    args = parser.parse_args(argv)
    from bench.ingest import make_corpus

    work = Path(tempfile.mkdtemp(prefix="pp-lean-corpus-"))
    corpus = make_corpus(work, args.docs, args.pages)
    eval_pdfs = build_corpus(work / "eval")
    before = export_commit(args.before)
    variants = {
        "before": (before, {"PYTHONPATH": str(before)}),
        "after-fp32": (ROOT, {"PP_EMBEDDING_PRECISION": "fp32"}),
        "after-int8": (ROOT, {"PP_EMBEDDING_PRECISION": "int8"}),
    }
    results: dict = {"machine": f"{os.cpu_count()} CPUs, shared with other work", "variants": {}}
    for name in args.variants.split(","):
        cwd, env = variants[name]
        results["variants"][name] = run_variant(name, cwd, env, corpus, args.docs * args.pages, eval_pdfs, args.turns)
    results["vector_agreement"] = vector_agreement(eval_pdfs)
    report(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(f"\nwritten to {args.out}; ratios before/after-int8:", json.dumps(ratios(results)))
    return 0


def ratios(results: dict) -> dict:
    v = results["variants"]
    if "before" not in v or "after-int8" not in v:
        return {}
    b, a = v["before"], v["after-int8"]
    return {
        "memory_total_rss": round(b["memory"]["total_rss_mb"] / a["memory"]["total_rss_mb"], 2),
        "inquire_p50": round(b["inquire_turn"]["p50_ms"] / a["inquire_turn"]["p50_ms"], 2),
        "ingest_pages_per_s": round(a["ingest"]["pages_per_s"] / b["ingest"]["pages_per_s"], 2),
        "up_warm": round(b["up_ready_warm_s"] / a["up_ready_warm_s"], 2),
        "recall_at_5": round(a["retrieval"]["recall_at_5"] / b["retrieval"]["recall_at_5"], 3),
    }


if __name__ == "__main__":
    raise SystemExit(main())
