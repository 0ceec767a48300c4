"""Answer quality of the agent on the evaluation set, through the real system (issue #16).

    .venv/bin/python -m bench.answer_eval [--engine offline|openai] [--split dev|test|both] [--limit N]
                                          [--questions FILE]

The corpus of examples/eval (22 public documents, 1–44 pages, PDFs generated from committed
text by examples/eval/make_eval_pdfs.py) is ingested by the real ingest worker over the bus
contract into the embedded Postgres + NATS that `up` uses; then every question is one chat turn
(`pp.cmd.chat`, action inquire, the question's document tagged) through the resolver, the
retrieval worker and the inquire action worker, and the terminal event is scored
(bench/answer_metrics.py). A `retrieval_low` PalAssist question is answered "continue anyway"
(the answer then carries the disclaimer and low confidence). Every document is also summarised
(a summarize turn with the document tagged). Intent paraphrases go through the LLM service's
`intent` task, as the resolver calls it.

`--questions FILE` asks another question file of the same shape instead, and nothing else (no
summaries, no intents): examples/eval/probe_unanswerable.json is 40 questions the corpus does not
answer, beside its subjects, written to tune confidence on (all of it development material).

`--engine openai` runs the same with the OpenAI-compatible provider (OPENAI_API_KEY, and
OPENAI_BASE_URL for vLLM, Ollama, llama.cpp or LiteLLM servers). Prints the issue's table for dev
and test, per-document-length buckets and the failing questions; writes
bench/results/answer_eval[-<engine>].json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nats.js.api import ConsumerConfig, DeliverPolicy

from bench.answer_metrics import finds_fact, gold_window, outcome, precision, quote_on_page, repeated_sentences
from bench.harness import admin_url
from bench.retrieval_eval import ingest_all
from examples.eval.eval_set import QUESTIONS, Question, load_intents, load_questions, page_texts, split_of
from examples.eval.make_eval_pdfs import build_corpus
from services.actions import worker as action_worker
from services.ingest import worker as ingest_worker
from services.resolver import worker as resolver_worker
from services.retrieval import worker as retrieval_worker
from shared.bus.connection import connect_bus
from shared.bus.publish import publish
from shared.config import Settings
from shared.contracts import TERMINAL_EVENT_TYPES, ChatCommand, ResumeCommand, ResumeValue
from shared.db import conversations
from shared.db.pool import open_database, tenant_tx
from shared.db.tenants import ensure_tenant
from shared.llm import build_prompt
from shared.llm.schemas import IntentInputs, IntentOutput
from shared.llm.service import LLMService, build_provider
from shared.runtime.embedded import free_port
from shared.runtime.platform import start_platform
from shared.runtime.service import Infra

ROOT = Path(__file__).resolve().parent.parent
BUCKETS = (("1 page", 1, 1), ("2-5 pages", 2, 5), ("6+ pages", 6, 10_000))
# How long one turn may take; --turn-timeout raises it for slow local models.
TURN_TIMEOUT_S = 120.0


@dataclass
class Scored:
    id: str
    split: str
    kind: str  # answerable | unanswerable
    pages: int
    found: bool = False
    precision: float | None = None
    nothing_found: bool = False
    honest: bool = False
    verbatim: bool = True
    confidence: str | None = None
    asked_low: bool = False
    response: str = ""
    quotes: list[str] = field(default_factory=list)


async def read_until(
    infra: Infra, subject: str, done: Callable[[dict], bool], timeout_s: float = TURN_TIMEOUT_S
) -> list[dict]:
    sub = await infra.bus.js.subscribe(
        subject,
        stream=infra.bus.subjects.events_stream,
        ordered_consumer=True,
        config=ConsumerConfig(deliver_policy=DeliverPolicy.ALL),
    )
    events: list[dict] = []
    try:
        async with asyncio.timeout(timeout_s):
            while True:
                event = json.loads((await sub.next_msg(timeout=timeout_s)).data)
                events.append(event)
                if done(event):
                    return events
    finally:
        await sub.unsubscribe()


def finished(run_id: uuid.UUID) -> Callable[[dict], bool]:
    return lambda e: e.get("type") in TERMINAL_EVENT_TYPES and e.get("run_id") == str(run_id)


async def turn(
    infra: Infra,
    tenant: uuid.UUID,
    user: str,
    message: str,
    action: str,
    doc_ids: list,
    timeout_s: float = TURN_TIMEOUT_S,
) -> tuple:
    """One chat turn; a retrieval_low question is answered 'continue'. Returns (final event, asked_low)."""
    thread = uuid.uuid4()
    async with tenant_tx(infra.db, tenant, user) as conn:
        await conversations.create_conversation(conn, thread, tenant, user)
    cmd = ChatCommand(
        tenant_id=tenant, user_id=user, thread_id=thread, message=message, action=action, tagged_doc_ids=doc_ids
    )
    await publish(infra.bus, infra.bus.subjects.cmd_chat, cmd, msg_id=str(cmd.run_id))
    last = (await read_until(infra, infra.bus.subjects.evt_thread(thread), finished(cmd.run_id), timeout_s))[-1]
    if last.get("type") == "interrupt" and last.get("interrupt_type") == "retrieval_low":
        resume = ResumeCommand(
            tenant_id=tenant,
            user_id=user,
            thread_id=thread,
            resume_value=ResumeValue(type="retrieval_choice", value="continue"),
        )
        await publish(infra.bus, infra.bus.subjects.cmd_resume, resume)
        last = (await read_until(infra, infra.bus.subjects.evt_thread(thread), finished(resume.run_id), timeout_s))[-1]
        return last, True
    return last, False


def score_question(
    q: Question, event: dict, asked_low: bool, pages: dict[str, list[str]], slug_of: dict[str, str]
) -> Scored:
    response = event.get("response") or ""
    citations = [c for c in event.get("citations") or [] if c.get("page")]
    s = Scored(q.id, q.split, "answerable" if q.answerable else "unanswerable", len(pages[q.doc]) if q.doc else 0)
    s.response, s.quotes = response, [c.get("quote", "") for c in citations]
    s.confidence, s.asked_low = event.get("retrieval_confidence"), asked_low

    def on_page(citation: dict) -> bool:
        texts = pages.get(slug_of.get(str(citation.get("document_id")), ""), [])
        return 0 < citation["page"] <= len(texts) and quote_on_page(citation["quote"], texts[citation["page"] - 1])

    s.verbatim = all(on_page(c) for c in citations)
    o = outcome(response, citations, s.confidence, asked_low)
    s.nothing_found = o.nothing_found
    if q.answer is not None and q.doc is not None:  # every answerable question names its document
        s.found = finds_fact(response, s.quotes, q.answer)
        s.precision = precision(response, gold_window(" ".join(pages[q.doc]), q.answer))
    else:
        s.honest = o.honest_on_unanswerable
    return s


async def run_summaries(
    infra: Infra,
    tenant: uuid.UUID,
    user: str,
    doc_ids: dict[str, uuid.UUID],
    pages: dict[str, list[str]],
    timeout_s: float = TURN_TIMEOUT_S,
) -> list[dict]:
    out = []
    for slug, doc_id in doc_ids.items():
        event, _ = await turn(infra, tenant, user, "Summarize this document", "summarize", [doc_id], timeout_s)
        async with tenant_tx(infra.db, tenant, user) as conn:
            rows = await (
                await conn.execute("SELECT id, section FROM chunks WHERE document_id = %s", (doc_id,))
            ).fetchall()
        section_of = {str(r["id"]): r["section"] for r in rows}
        headings = {s for s in section_of.values() if s}
        covered = {section_of.get(str(c.get("chunk_id"))) for c in event.get("citations") or []} & headings
        out.append(
            {
                "doc": slug,
                "split": split_of(slug),
                "pages": len(pages[slug]),
                "headings": len(headings),
                "covered": len(covered),
                "coverage": round(len(covered) / len(headings), 3) if headings else 1.0,
                "repeated_sentences": repeated_sentences(event.get("response") or ""),
            }
        )
    return out


async def run_intents(settings: Settings, splits: tuple[str, ...], limit: int | None) -> list[dict]:
    service = LLMService(settings, build_provider(settings))
    out = []
    for case in [c for c in load_intents() if c.split in splits][:limit]:
        result = await service.structured(
            "intent", IntentOutput, build_prompt("intent", IntentInputs(message=case.message, history=[]))
        )
        out.append(
            {
                "id": case.id,
                "split": case.split,
                "message": case.message,
                "expected": case.action,
                "got": list(result.actions),
                "confidence": result.confidence,
                "correct": list(result.actions) == [case.action],
            }
        )
    return out


async def evaluate(
    settings: Settings,
    pdfs: dict[str, Path],
    splits: tuple[str, ...],
    limit: int | None = None,
    turn_timeout_s: float = TURN_TIMEOUT_S,
    questions: Path = QUESTIONS,
) -> dict[str, Any]:
    tenant, user = uuid.uuid4(), "answer-eval"
    await ensure_tenant(admin_url(settings), tenant, "answer eval", user)
    bus = await connect_bus(settings, name="answer-eval")
    db = await open_database(settings)
    infra = Infra(settings=settings, bus=bus, db=db)
    pages = {slug: page_texts(path) for slug, path in pdfs.items()}
    stop = asyncio.Event()
    workers = [
        asyncio.create_task(ingest_worker.serve(infra, stop)),
        asyncio.create_task(retrieval_worker.serve(infra, stop)),
        asyncio.create_task(resolver_worker.serve(infra, stop)),
        *[asyncio.create_task(action_worker.serve_action(infra, stop, a)) for a in ("inquire", "summarize")],
    ]
    try:
        doc_ids = await ingest_all(infra, tenant, user, pdfs)
        slug_of = {str(doc_id): slug for slug, doc_id in doc_ids.items()}
        scored, latencies = [], []
        for q in [q for q in load_questions(questions) if q.split in splits][:limit]:
            started = time.perf_counter()
            scope = [doc_ids[q.doc]] if q.doc else []
            event, asked = await turn(infra, tenant, user, q.question, "inquire", scope, turn_timeout_s)
            latencies.append(time.perf_counter() - started)
            scored.append(score_question(q, event, asked, pages, slug_of))
        summaries, intents = [], []
        if questions == QUESTIONS:  # a probe file tunes the answers alone
            summarised = dict([(slug, d) for slug, d in doc_ids.items() if split_of(slug) in splits][:limit])
            summaries = await run_summaries(infra, tenant, user, summarised, pages, turn_timeout_s)
            intents = await run_intents(settings, splits, limit)
    finally:
        stop.set()
        await asyncio.wait(workers, timeout=30)
        await bus.close()
        await db.close()
    return {
        "questions": [asdict(s) for s in scored],
        "summaries": summaries,
        "intents": intents,
        "turn_s_p50": sorted(latencies)[len(latencies) // 2] if latencies else None,
    }


def share(values: list[bool]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def table(questions: list[dict], summaries: list[dict], intents: list[dict]) -> dict[str, Any]:
    """The issue's measures over one slice of the results."""
    answerable = [q for q in questions if q["kind"] == "answerable"]
    unanswerable = [q for q in questions if q["kind"] == "unanswerable"]
    return {
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "gold_fact_cited": share([q["found"] for q in answerable]),
        "answer_precision": mean([q["precision"] for q in answerable if q["precision"] is not None]),
        "unanswerable_honest": share([q["honest"] for q in unanswerable]),
        "tagged_never_nothing_found": share([not q["nothing_found"] for q in answerable]),
        "citations_verbatim_on_page": share([q["verbatim"] for q in questions]),
        "intent_accuracy": share([i["correct"] for i in intents]),
        "summary_heading_coverage": mean([s["coverage"] for s in summaries]),
        "summaries_with_repeats": sum(s["repeated_sentences"] > 0 for s in summaries),
    }


ROWS = (
    ("inquire: cited sentences contain the gold fact", "gold_fact_cited", "≥ 0.90"),
    ("inquire: answer precision", "answer_precision", "≥ 0.80"),
    ("unanswerable: mode C / low confidence", "unanswerable_honest", "≥ 0.90"),
    ("tagged document never 'nothing found'", "tagged_never_nothing_found", "1.00"),
    ("citation quote verbatim on the cited page", "citations_verbatim_on_page", "1.00"),
    ("intent accuracy on paraphrases", "intent_accuracy", "≥ 0.95"),
    ("summary: headings covered (mean)", "summary_heading_coverage", "≥ 0.80"),
    ("summary: documents with a repeated sentence", "summaries_with_repeats", "0"),
)


def fmt(value: Any) -> str:
    return "–" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def report(result: dict[str, Any], splits: tuple[str, ...]) -> None:
    per_split = result["by_split"]
    print(f"\n{'measure':<48}{'goal':>8}" + "".join(f"{s:>10}" for s in splits))
    for label, key, goal in ROWS:
        print(f"{label:<48}{goal:>8}" + "".join(f"{fmt(per_split[s][key]):>10}" for s in splits))
    print(
        "counts: "
        + "; ".join(
            f"{s}: {per_split[s]['answerable']} answerable, {per_split[s]['unanswerable']} unanswerable" for s in splits
        )
    )
    print(f"\n{'by document length (answerable)':<32}{'n':>5}{'gold':>8}{'prec.':>8}{'!empty':>8}{'verb.':>8}")
    for name, row in result["by_length"].items():
        print(
            f"{name:<32}{row['answerable']:>5}{fmt(row['gold_fact_cited']):>8}{fmt(row['answer_precision']):>8}"
            f"{fmt(row['tagged_never_nothing_found']):>8}{fmt(row['citations_verbatim_on_page']):>8}"
        )
    print("\nfailures (test split: listed for the note, never used to write rules):")
    for q in result["questions"]:
        problems = [
            name
            for name, bad in (
                ("gold fact not cited", q["kind"] == "answerable" and not q["found"]),
                ("nothing found", q["kind"] == "answerable" and q["nothing_found"]),
                ("confident answer to an unanswerable question", q["kind"] == "unanswerable" and not q["honest"]),
                ("quote not on cited page", not q["verbatim"]),
            )
            if bad
        ]
        if problems:
            print(f"  {q['split']:<5}{q['id']:<6}{', '.join(problems)}")
    for i in result["intents"]:
        if not i["correct"]:
            print(
                f"  {i['split']:<5}{i['id']:<6}intent {i['got']} ({i['confidence']}), expected {i['expected']}: "
                f"{i['message']}"
            )


def summarise(raw: dict[str, Any], splits: tuple[str, ...]) -> dict[str, Any]:
    qs, sums, intents = raw["questions"], raw["summaries"], raw["intents"]
    raw["by_split"] = {
        s: table(
            [q for q in qs if q["split"] == s],
            [x for x in sums if x["split"] == s],
            [i for i in intents if i["split"] == s],
        )
        for s in splits
    }
    raw["by_length"] = {
        name: table([q for q in qs if q["kind"] == "answerable" and lo <= q["pages"] <= hi], [], [])
        for name, lo, hi in BUCKETS
    }
    return raw


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=("offline", "openai"), default="offline")
    parser.add_argument("--split", choices=("dev", "test", "both"), default="both")
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--limit",
        type=int,
        help="Only the first N questions, documents to summarise and intent cases of each run "
        "(a small local model on a shared CPU takes tens of seconds a turn; docs/model-servers.md)",
    )
    parser.add_argument(
        "--questions",
        type=Path,
        default=QUESTIONS,
        help="another question file of the same shape (examples/eval/probe_unanswerable.json: a tuning probe)",
    )
    parser.add_argument("--turn-timeout", type=float, default=TURN_TIMEOUT_S, help="seconds one turn may take")
    args = parser.parse_args(argv)
    splits = ("dev", "test") if args.split == "both" else (args.split,)
    suffix = "" if args.engine == "offline" else f"-{args.engine}"
    out = args.out or ROOT / "bench" / "results" / f"answer_eval{suffix}.json"
    work = Path(tempfile.mkdtemp(prefix="pp-bench-answers-"))
    pdfs = build_corpus(work / "pdfs")
    base = Settings(
        nats_url=None, database_url=None, database_admin_url=None, nats_port=free_port(), llm_provider=args.engine
    )
    if args.engine == "openai" and not base.openai_api_key:
        raise SystemExit("--engine openai needs OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible server)")
    platform = start_platform(base, work / "platform")
    try:
        started = time.perf_counter()
        raw = asyncio.run(
            evaluate(platform.settings(base), pdfs, splits, args.limit, args.turn_timeout, args.questions)
        )
        raw["seconds"] = round(time.perf_counter() - started, 1)
    finally:
        platform.stop()
    result = summarise(raw, splits)
    result["engine"] = args.engine
    report(result, splits)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
