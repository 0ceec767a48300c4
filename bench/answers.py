"""Answers on real public documents: evidence page cited, pages per answer, gold figure, retrieval_low.

    policypal bench answers --set NAME [--split dev|test|both] [--baseline REF|none] [--limit N]
                            [--reuse DIR] [--show] [--file NAME …]

NAME is a set of bench/sets.py: sec-10q, sec-statements, sec-10k, …, gdpr, policyqa, policy-tables,
policy-office, policy-markdown.

The set's files (evals/real/<set>/, bench/real_sets.py and policy_sets.py) are ingested by the real ingest worker over
the bus contract into the embedded Postgres + NATS that `up` uses; every question is one chat turn
(`pp.cmd.chat`, action inquire, its filing tagged) through the resolver, the retrieval worker and the
inquire action worker. A `retrieval_low` question is answered "continue anyway" and counted.

Measures (per split): the evidence page is among the cited pages; distinct cited pages per answer;
the gold figure appears in the answer (questions whose gold answer states figures); the
`retrieval_low` rate; every citation's quote is on its cited page (MuPDF's own page text).

Before/after in one run: unless `--baseline none`, the same benchmark first runs on the baseline
commit (a temporary `git worktree` of REF, with this file, the sets' modules (OWN_FILES) and the
set's folder as they are now copied in, as a child process), then on the working tree, and the two tables are
printed side by side. Writes
bench/results/answers-<set>.json.

`--reuse DIR` keeps the working tree's embedded Postgres + NATS under DIR and its ingested files
between runs: a run whose ingest code is unchanged (the hash of services/ingest, shared/text and the
migrations) asks its questions of the documents already there, so a retrieval or answer change costs
minutes, not the 10–20 minutes of ingesting the filings again. `--show` prints, per question, the
evidence pages, the cited pages and the answer: where a miss is retrieval and where composition.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.answer_eval import turn
from bench.answer_metrics import MARKER, quote_on_page
from bench.harness import admin_url
from bench.policy_sets import document_texts
from bench.real_sets import RealQuestion, has_computed, names_first, states, verdict_of
from bench.sets import folder_of, load
from examples.eval.eval_set import normalise
from services.actions import worker as action_worker
from services.ingest import worker as ingest_worker
from services.resolver import worker as resolver_worker
from services.retrieval import worker as retrieval_worker
from shared.bus.connection import connect_bus
from shared.bus.ingest_jobs import submit_ingest
from shared.config import Settings
from shared.contracts import ChunkHit, Scope, SearchRequest
from shared.db.pool import open_database, tenant_tx
from shared.db.tenants import ensure_tenant
from shared.retrieval import client as retrieval
from shared.runtime.embedded import free_port
from shared.runtime.platform import start_platform
from shared.runtime.service import Infra

ROOT = Path(__file__).resolve().parent.parent
# The commit this work started from (issue #27): what "before" means unless --baseline says otherwise.
BASELINE_REF = "cf9e84e"
OWN_FILES = (
    "bench/answers.py",
    "bench/answer_metrics.py",
    "bench/real_sets.py",
    "bench/policy_sets.py",
    "bench/sets.py",
)
INGEST_TIMEOUT_S = 1800


@dataclass
class Scored:
    id: str
    split: str
    extraction: bool
    has_evidence: bool
    evidence_cited: bool = False
    cited_pages: int = 0
    figure_in_answer: bool = False
    computed_in_answer: bool | None = None
    in_unit_in_answer: bool | None = None
    winner_named: bool | None = None
    # A yes/no question: the answer opens with its verdict, and the verdict it opens with is wrong.
    verdict_first: bool | None = None
    verdict_wrong: bool | None = None
    asked_low: bool = False
    verbatim: bool = True
    answerable: bool = True
    honest: bool = False
    confidence: str | None = None
    response: str = ""
    cited: list[list[Any]] = field(default_factory=list)
    evidence: dict[str, list[int]] = field(default_factory=dict)
    # The quotes not found on their cited page, for --show.
    off_page: list[str] = field(default_factory=list)


async def ingest(infra: Infra, tenant: uuid.UUID, user: str, files: dict[str, Path]) -> dict[str, uuid.UUID]:
    """Submit every file over the public bus contract and wait until each is ready."""
    ids = {}
    for name, path in files.items():
        ids[name] = uuid.uuid4()
        await submit_ingest(
            infra.bus, tenant, user, path, title=path.stem, doc_type="knowledge_base", document_id=ids[name]
        )
    deadline = time.monotonic() + INGEST_TIMEOUT_S
    while time.monotonic() < deadline:
        async with tenant_tx(infra.db, tenant, user) as conn:
            rows = await (
                await conn.execute("SELECT status, error FROM documents WHERE id = ANY(%s)", (list(ids.values()),))
            ).fetchall()
        if any(r["status"] == "failed" for r in rows):
            raise RuntimeError(f"ingest failed: {[r['error'] for r in rows if r['error']]}")
        if len(rows) == len(ids) and all(r["status"] == "ready" for r in rows):
            return ids
        await asyncio.sleep(1.0)
    raise TimeoutError("ingest did not finish")


async def vectors_stored(infra: Infra, tenant: uuid.UUID, user: str, ids: list[uuid.UUID]) -> None:
    """Wait until every chunk of the documents has its vector. `ready` means searchable by words
    (docs/ingest.md, "the two phases"): a question asked before phase two ends is ranked by words
    and question-time vectors of a few candidates, which is not what this benchmark measures."""
    deadline = time.monotonic() + INGEST_TIMEOUT_S
    while time.monotonic() < deadline:
        async with tenant_tx(infra.db, tenant, user) as conn:
            row = await (
                await conn.execute(
                    "SELECT count(*) AS n FROM chunks WHERE document_id = ANY(%s) AND embedding IS NULL", (ids,)
                )
            ).fetchone()
        if row and row["n"] == 0:
            return
        await asyncio.sleep(2.0)
    raise TimeoutError("chunk vectors were not stored in time")


def score(
    q: RealQuestion, event: dict, asked_low: bool, pages: dict[str, list[str]], name_of: dict[str, str]
) -> Scored:
    response = MARKER.sub("", event.get("response") or "")
    citations = [c for c in event.get("citations") or [] if c.get("page") and c.get("document_id")]
    cited = sorted({(name_of.get(str(c["document_id"]), "?"), int(c["page"])) for c in citations})
    s = Scored(q.id, q.split, q.extraction, bool(q.evidence), asked_low=asked_low)
    s.response, s.confidence = event.get("response") or "", event.get("retrieval_confidence")
    s.cited = [list(c) for c in cited]
    s.evidence = {k: list(v) for k, v in q.evidence.items()}
    s.cited_pages = len(cited)
    s.evidence_cited = any(page in q.evidence.get(name, ()) for name, page in cited)
    s.figure_in_answer = any(states(response, f) for f in q.figures)
    s.computed_in_answer = None if q.computed is None else has_computed(response, q.computed)
    s.in_unit_in_answer = None if q.in_unit is None else has_computed(response, q.in_unit)
    s.winner_named = None if q.winner is None else names_first(response, q.winner)
    if q.verdict is not None:
        opens = verdict_of(response)
        s.verdict_first, s.verdict_wrong = opens == q.verdict, opens not in (None, q.verdict)
    s.answerable = q.answerable
    said = normalise(response)
    # Honest on a question the documents do not answer: asked, said so, or answered with low confidence.
    s.honest = asked_low or s.confidence == "low" or not citations or "couldn't find" in said

    def on_page(c: dict) -> bool:
        texts = pages.get(name_of.get(str(c["document_id"]), ""), [])
        if not 0 < c["page"] <= len(texts):
            return False
        return quote_on_page(c.get("quote", ""), normalise(texts[c["page"] - 1]))

    s.off_page = [f"p{c['page']}: {c.get('quote', '')}" for c in citations if not on_page(c)]
    s.verbatim = not s.off_page
    return s


# What decides the stored chunks: a reused database is asked only if none of it changed.
INGEST_CODE = (
    "services/ingest",
    "shared/text/sentences.py",
    "shared/text/tables.py",
    "shared/db/migrations",
    "shared/embeddings",
    "shared/documents",
)


def ingest_key() -> str:
    digest = hashlib.sha256()
    for folder in INGEST_CODE:
        paths = [ROOT / folder] if (ROOT / folder).is_file() else sorted((ROOT / folder).rglob("*"))
        for path in paths:
            if path.is_file() and path.suffix in (".py", ".sql"):
                digest.update(str(path.relative_to(ROOT)).encode() + path.read_bytes())
    return digest.hexdigest()[:16]


class Reused:
    """The tenant and document ids of an earlier `--reuse` run whose ingest code was this one's.

    The folder keeps one tenant per ingest key, so a before/after run (`--baseline REF --reuse DIR`)
    asks each side's own stored documents again instead of re-ingesting whichever ran second."""

    def __init__(self, folder: Path | None) -> None:
        self.path = folder / "ingested.json" if folder else None
        state = json.loads(self.path.read_text()) if self.path and self.path.exists() else {}
        # An older file held one key's state at its top level.
        self.states: dict[str, Any] = state.get("by_key", {state["key"]: state} if "key" in state else {})
        mine = self.states.get(ingest_key())
        self.fresh = mine is None
        self.tenant = uuid.uuid4() if mine is None else uuid.UUID(mine["tenant"])
        self.ids: dict[str, uuid.UUID] = {} if mine is None else {k: uuid.UUID(v) for k, v in mine["ids"].items()}

    def save(self, ids: dict[str, uuid.UUID]) -> None:
        self.ids.update(ids)
        if self.path:
            self.states[ingest_key()] = {"tenant": str(self.tenant), "ids": {k: str(v) for k, v in self.ids.items()}}
            self.path.write_text(json.dumps({"by_key": self.states}))


async def retrieved_pages(infra: Infra, tenant: uuid.UUID, user: str, q: RealQuestion, ids: list[uuid.UUID]) -> str:
    """The pages of the chunks a search for the question returns, best first (* an evidence page):
    whether a miss is retrieval (never returned), ranking (returned low) or composition."""
    # Imported here: a baseline commit from before the retrieval query runs without --show.
    from shared.text.search_query import retrieval_query

    request = SearchRequest(
        tenant_id=tenant,
        user_id=user,
        query_text=retrieval_query(q.question),
        scope=Scope(doc_ids=[str(i) for i in ids]),
        per_doc_k=infra.settings.total_k,
        total_k=infra.settings.total_k,
        hybrid=True,
    )
    hits = (await retrieval.search(infra.bus, request, timeout=infra.settings.rpc_timeout_s)).chunks
    evidence = {p for pages in q.evidence.values() for p in pages}

    def pages(hit: ChunkHit) -> str:
        span = range(hit.page, hit.page + len(hit.page_breaks) + 1)
        return "/".join(f"{p}*" if p in evidence else str(p) for p in span)

    return " ".join(pages(h) for h in hits)


def show(q: RealQuestion, s: Scored, retrieved: str) -> None:
    """One question's diagnosis: gold pages and figures, what was retrieved and cited, what was said."""
    mark = ("E" if s.evidence_cited else "-") + ("F" if s.figure_in_answer else "-") + ("V" if s.verbatim else "!")
    if q.verdict is not None:
        said = "right" if s.verdict_first else "WRONG" if s.verdict_wrong else "none"
        mark += f" verdict {said} ({q.verdict})"
    gold = {k[:24]: list(v) for k, v in q.evidence.items()}
    print(f"{q.id} {mark} gold {gold} figures {list(q.figures)[:4]} cited {[p for _, p in s.cited]} [{s.confidence}]")
    print(f"   retrieved: {retrieved}")
    print(f"   Q: {q.question[:160]}")
    print(f"   A: {' '.join(s.response.split())[:700]}", flush=True)
    for quote in s.off_page:
        print(f"   off its page: {quote}", flush=True)


async def evaluate(
    settings: Settings,
    questions: list[RealQuestion],
    files: dict[str, Path],
    reused: Reused,
    *,
    verbose: bool = False,
    ingest_only: bool = False,
    at_ready: bool = False,
) -> dict[str, Any]:
    tenant, user = reused.tenant, "bench-answers"
    await ensure_tenant(admin_url(settings), tenant, "answers bench", user)
    bus = await connect_bus(settings, name="bench-answers")
    db = await open_database(settings)
    infra = Infra(settings=settings, bus=bus, db=db)
    pages = {name: document_texts(path) for name, path in files.items()}
    stop = asyncio.Event()
    workers = [
        asyncio.create_task(ingest_worker.serve(infra, stop)),
        asyncio.create_task(retrieval_worker.serve(infra, stop)),
        asyncio.create_task(resolver_worker.serve(infra, stop)),
        asyncio.create_task(action_worker.serve_action(infra, stop, "inquire")),
    ]
    try:
        started = time.perf_counter()
        missing = {name: path for name, path in files.items() if name not in reused.ids}
        reused.save(await ingest(infra, tenant, user, missing) if missing else {})
        ids = {name: reused.ids[name] for name in files}
        if not at_ready:
            await vectors_stored(infra, tenant, user, list(ids.values()))
        ingest_s = time.perf_counter() - started
        name_of = {str(v): k for k, v in ids.items()}
        scored, latencies = [], []
        for q in questions if not ingest_only else []:
            started = time.perf_counter()
            event, asked = await turn(infra, tenant, user, q.question, "inquire", [ids[f] for f in q.files])
            latencies.append(time.perf_counter() - started)
            scored.append(score(q, event, asked, pages, name_of))
            if verbose:
                show(q, scored[-1], await retrieved_pages(infra, tenant, user, q, [ids[f] for f in q.files]))
    finally:
        stop.set()
        await asyncio.wait(workers, timeout=30)
        await bus.close()
        await db.close()
    latencies.sort()
    return {
        "questions": [asdict(s) for s in scored],
        "ingest_s": round(ingest_s, 1),
        "turn_s_p50": round(latencies[len(latencies) // 2], 3) if latencies else None,
    }


def share(values: list[bool]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def table(questions: list[dict]) -> dict[str, Any]:
    with_evidence = [q for q in questions if q["has_evidence"]]
    extraction = [q for q in questions if q["extraction"]]
    computed = [q for q in questions if q.get("computed_in_answer") is not None]
    in_unit = [q for q in questions if q.get("in_unit_in_answer") is not None]
    compared = [q for q in questions if q.get("winner_named") is not None]
    judged = [q for q in questions if q.get("verdict_first") is not None]
    unanswerable = [q for q in questions if not q.get("answerable", True)]
    questions = [q for q in questions if q.get("answerable", True)]
    return {
        "questions": len(questions),
        "unanswerable": len(unanswerable),
        "unanswerable_honest": share([q["honest"] for q in unanswerable]),
        "evidence_page_cited": share([q["evidence_cited"] for q in with_evidence]),
        "cited_pages_mean": round(sum(q["cited_pages"] for q in questions) / len(questions), 2) if questions else None,
        "figure_in_answer": share([q["figure_in_answer"] for q in extraction]),
        "computed_in_answer": share([q["computed_in_answer"] for q in computed]),
        "in_unit_in_answer": share([q["in_unit_in_answer"] for q in in_unit]),
        "winner_named": share([q["winner_named"] for q in compared]),
        "verdict_first": share([q["verdict_first"] for q in judged]),
        "verdict_wrong": share([q["verdict_wrong"] for q in judged]),
        "retrieval_low_rate": share([q["asked_low"] for q in questions]),
        "quotes_on_cited_page": share([q["verbatim"] for q in questions]),
    }


ROWS = (
    ("evidence page among cited pages", "evidence_page_cited", "≥ 0.60"),
    ("distinct cited pages per answer (mean)", "cited_pages_mean", "≤ 4"),
    ("gold figure / phrase in answer", "figure_in_answer", "≥ 0.50"),
    ("computed figure in answer (computed questions)", "computed_in_answer", ""),
    ("figure in the unit asked (another unit than printed)", "in_unit_in_answer", ""),
    ("member asked named before any figure (which is largest…)", "winner_named", ""),
    ("yes/no question: the right verdict first", "verdict_first", ""),
    ("yes/no question: a wrong verdict first", "verdict_wrong", "0"),
    ("retrieval_low asked", "retrieval_low_rate", "low"),
    ("every quote on its cited page", "quotes_on_cited_page", "1.00"),
    ("unanswerable: said so / low confidence", "unanswerable_honest", "≥ 0.90"),
    ("questions (answerable, unanswerable)", "questions", ""),
    ("", "unanswerable", ""),
)


def summarise(raw: dict[str, Any], splits: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    return {s: table([q for q in raw["questions"] if q["split"] == s]) for s in splits}


def fmt(value: Any) -> str:
    return "–" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def report(runs: dict[str, dict[str, Any]], splits: tuple[str, ...]) -> None:
    columns = [(label, split) for label in runs for split in splits]
    print(f"\n{'measure':<46}{'goal':>8}" + "".join(f"{f'{label}:{split}':>16}" for label, split in columns))
    for text, key, goal in ROWS:
        cells = "".join(f"{fmt(runs[label]['by_split'][split][key]):>16}" for label, split in columns)
        print(f"{text:<46}{goal:>8}{cells}")
    for label, run in runs.items():
        print(f"{label}: ingest {run['ingest_s']} s, turn p50 {run['turn_s_p50']} s")


def run_baseline(ref: str, set_name: str, argv: list[str]) -> dict[str, Any]:
    """The same benchmark on commit `ref`, in a temporary worktree, as a child process (with this
    benchmark's files and the set's folder as they are here copied in: before and after ask the
    same questions of the same files, though the set has grown since the commit)."""
    work = Path(tempfile.mkdtemp(prefix="pp-bench-baseline-"))
    tree = work / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), ref], check=True)
    try:
        for own in OWN_FILES:
            shutil.copy2(ROOT / own, tree / own)
        source, target = folder_of(set_name), tree / folder_of(set_name).relative_to(ROOT)
        shutil.copytree(source, target, dirs_exist_ok=True)
        out = work / "baseline.json"
        cmd = [sys.executable, "-m", "bench.answers", *argv, "--baseline", "none", "--out", str(out)]
        subprocess.run(cmd, cwd=tree, check=True)
        return json.loads(out.read_text())
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
        shutil.rmtree(work, ignore_errors=True)


def run_here(
    set_name: str,
    splits: tuple[str, ...],
    limit: int | None,
    reuse: Path | None = None,
    verbose: bool = False,
    ingest_only: bool = False,
    at_ready: bool = False,
    only_files: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="pp-bench-answers-"))
    questions, files = load(set_name, work)
    questions = [q for q in questions if q.split in splits and (not only_files or only_files & set(q.files))][:limit]
    needed = {f for q in questions for f in q.files}
    files = {name: path for name, path in files.items() if name in needed}
    # Sentence vectors are embedded when a turn first needs them instead of at ingest: the same vectors,
    # so the same answers, and most of a filing's sentences are never asked about (ingest 3–4× faster).
    base = Settings(
        nats_url=None, database_url=None, database_admin_url=None, nats_port=free_port(), ingest_sentence_vectors=False
    )
    if reuse:
        reuse.mkdir(parents=True, exist_ok=True)
    platform = start_platform(base, (reuse or work) / "platform")
    try:
        raw = asyncio.run(
            evaluate(
                platform.settings(base),
                questions,
                files,
                Reused(reuse),
                verbose=verbose,
                ingest_only=ingest_only,
                at_ready=at_ready,
            )
        )
    finally:
        platform.stop()
        shutil.rmtree(work, ignore_errors=True)
    raw["by_split"] = summarise(raw, splits)
    return raw


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="sec-10q")
    parser.add_argument("--split", choices=("dev", "test", "both"), default="dev")
    parser.add_argument("--baseline", default=BASELINE_REF, help="commit to compare with, or 'none'")
    parser.add_argument("--limit", type=int, help="only the first N questions of the split(s)")
    parser.add_argument(
        "--file",
        action="append",
        default=[],
        help="only the questions about this file (repeatable): the reach of a parse change, the files it changes",
    )
    parser.add_argument("--out", type=Path)
    parser.add_argument("--reuse", type=Path, help="keep the database here and ask it again while ingest is unchanged")
    parser.add_argument("--show", action="store_true", help="print each question's pages and answer")
    parser.add_argument(
        "--ingest-only", action="store_true", help="with --reuse: ingest the split's files, ask nothing"
    )
    parser.add_argument(
        "--at-ready",
        action="store_true",
        help="ask as soon as the files are ready (searchable by words), before their chunk vectors land",
    )
    args = parser.parse_args(argv)
    splits = ("dev", "test") if args.split == "both" else (args.split,)
    child_argv = ["--set", args.set, "--split", args.split] + (["--limit", str(args.limit)] if args.limit else [])
    child_argv += ["--at-ready"] if args.at_ready else []
    child_argv += [arg for name in args.file for arg in ("--file", name)]
    # The baseline asks the same stored documents when its ingest code is this one's (the key says so).
    child_argv += ["--reuse", str(args.reuse.resolve())] if args.reuse else []
    runs: dict[str, dict[str, Any]] = {}
    if args.baseline != "none":
        runs["before"] = run_baseline(args.baseline, args.set, child_argv)
    runs["after" if runs else "now"] = run_here(
        args.set, splits, args.limit, args.reuse, args.show, args.ingest_only, args.at_ready, frozenset(args.file)
    )
    out = args.out or ROOT / "bench" / "results" / f"answers-{args.set}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(runs if args.baseline != "none" else runs["now"], indent=1, default=str))
    if args.out is None or args.baseline != "none":
        report(runs, splits)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
