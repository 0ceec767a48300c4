"""The workspace UI in headless Chromium (issue #12): load time, JavaScript weight, streaming smoothness.

    python -m bench.ui [--loads 15] [--tokens 2000]

Starts `policypal up` and measures, side by side in one run:
- navigation → interactive (composer present, documents and the first page of conversations
  listed), p50/p99 over `--loads` reloads, for an empty account and for one with 200 documents
  (8 sets) and 100 conversations (rows written straight into Postgres: this measures listing them,
  not ingesting them);
- bytes shipped before first use (every script and stylesheet of that load), raw and gzipped;
  pdf.js is excluded by design and loaded when the viewer first opens, measured separately;
- a `--tokens`-token answer streamed into the page through the real relay (token events published
  on the thread's subject while the page follows it with GET /v1/threads/{id}/events): long tasks
  (PerformanceObserver "longtask", > 50 ms) and the longest one, with tokens at a model's pace
  (200 tokens/s) and all at once.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import nats
import psycopg
from playwright.sync_api import Page, Response, sync_playwright
from psycopg.rows import dict_row

from bench.harness import summary
from shared.contracts import ResponseEvent, TokenEvent
from shared.db import conversations
from shared.db import documents as docs
from shared.runtime.launcher import LaunchedSystem, launch_up
from tests.e2e.browser import launch, new_context

T = TypeVar("T")

ROOT = Path(__file__).resolve().parent.parent
DEMO_TENANT = "00000000-0000-4000-8000-000000000001"
INTERACTIVE = """(docs) => !!document.querySelector('[data-testid=chat-input]')
  && document.querySelectorAll('[data-testid=doc-item]').length >= docs
  && !document.querySelector('.loading')"""


async def seed(admin_url: str, user_id: str, n_docs: int, n_conversations: int) -> None:
    async with await psycopg.AsyncConnection.connect(admin_url, row_factory=dict_row) as conn, conn.transaction():
        await conn.execute("SELECT set_config('app.tenant_id', %s, true)", (DEMO_TENANT,))
        await conn.execute(
            "INSERT INTO users (id, tenant_id, display_name) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
            (user_id, DEMO_TENANT, user_id),
        )
        sets = [await docs.get_or_create_set(conn, uuid.UUID(DEMO_TENANT), user_id, f"Set {n}") for n in range(8)]
        for n in range(n_docs):
            doc_id = uuid.uuid4()
            await docs.insert_document(
                conn,
                {
                    "id": doc_id,
                    "tenant_id": DEMO_TENANT,
                    "user_id": user_id,
                    "title": f"Policy document number {n}",
                    "version": "1",
                    "doc_type": "regulatory_source",
                    "set_id": sets[n % len(sets)],
                    "source_type": "upload",
                    "filename": f"doc-{n}.pdf",
                    "mime": "application/pdf",
                    "sha256": uuid.uuid4().hex,
                    "byte_size": 1000,
                    "object_key": f"{DEMO_TENANT}/{doc_id}",
                    "visibility": "private",
                },
            )
            await docs.set_status(conn, doc_id, "ready", page_count=3)
        for n in range(n_conversations):
            thread_id = uuid.uuid4()
            await conversations.create_conversation(conn, thread_id, uuid.UUID(DEMO_TENANT), user_id)
            await conversations.add_message(
                conn,
                message_id=uuid.uuid4(),
                thread_id=thread_id,
                tenant_id=DEMO_TENANT,
                role="user",
                content=f"Question number {n} about retention periods",
            )


def first_load(page: Page, url: str, n_docs: int) -> list[dict]:
    """Sign in on a fresh context (empty cache) and weigh every script and stylesheet it fetched."""
    fetched: list[Response] = []

    def record(response: Response) -> None:
        fetched.append(response)

    page.on("response", record)
    page.goto(url)
    page.wait_for_function(INTERACTIVE, arg=n_docs, timeout=60_000)
    page.remove_listener("response", record)
    return [weigh(r) for r in fetched if r.request.resource_type in ("script", "stylesheet")]


def load_times(page: Page, url: str, n_docs: int, loads: int) -> list[float]:
    """Seconds from navigation to interactive, per reload (the browser cache as a returning user has it)."""
    times = []
    for _ in range(loads):
        page.goto(url)
        page.wait_for_function(INTERACTIVE, arg=n_docs, timeout=60_000)
        times.append(page.evaluate("performance.now()") / 1000)
    return times


def weigh(response: Response) -> dict:
    body = response.body()
    kind = response.request.resource_type
    return {"url": response.url, "kind": kind, "bytes": len(body), "gzip": len(gzip.compress(body, 6))}


def pdfjs_weight(page: Page, base: str) -> dict:
    sizes = {}
    for name in ("pdf.min.mjs", "pdf.worker.min.mjs"):
        body = page.request.get(f"{base}/static/vendor/pdfjs/{name}").body()
        sizes[name] = {"bytes": len(body), "gzip": len(gzip.compress(body, 6))}
    return sizes


async def open_run(admin_url: str, user_id: str) -> tuple[uuid.UUID, uuid.UUID]:
    thread_id, run_id = uuid.uuid4(), uuid.uuid4()
    async with await psycopg.AsyncConnection.connect(admin_url, row_factory=dict_row) as conn, conn.transaction():
        await conn.execute("SELECT set_config('app.tenant_id', %s, true)", (DEMO_TENANT,))
        await conversations.create_conversation(conn, thread_id, uuid.UUID(DEMO_TENANT), user_id)
        await conversations.claim_thread(conn, thread_id, user_id, run_id, 600)
    return thread_id, run_id


async def publish_tokens(nats_url: str, thread_id: uuid.UUID, run_id: uuid.UUID, tokens: int, pace_s: float) -> None:
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    subject = f"pp.evt.thread.{thread_id}"
    words = [
        "Customer",
        "account",
        "records",
        "are",
        "retained",
        "for",
        "six",
        "years",
        "after",
        "the",
        "account",
        "is",
        "closed",
    ]
    text = []
    for n in range(tokens):
        piece = f"{words[n % len(words)]}{' [1]' if n % 97 == 96 else ''}{chr(10) * 2 if n % 120 == 119 else ' '}"
        text.append(piece)
        await js.publish(subject, TokenEvent(thread_id=thread_id, run_id=run_id, text=piece).model_dump_json().encode())
        if pace_s:
            await asyncio.sleep(pace_s)
    end = ResponseEvent(
        thread_id=thread_id,
        run_id=run_id,
        message_id=uuid.uuid4(),
        response="".join(text),
        action="inquire",
        engine="bench",
    )
    await js.publish(subject, end.model_dump_json().encode())
    await nc.close()


def off_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion on another thread: Playwright's sync API owns this thread's loop."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def stream_smoothness(page: Page, system: LaunchedSystem, user_id: str, tokens: int, pace_s: float) -> dict:
    admin_url = admin(system)
    thread_id, run_id = off_loop(open_run(admin_url, user_id))
    live = json.dumps({"threadId": str(thread_id), "runId": str(run_id), "after": None})
    page.evaluate("(live) => sessionStorage.setItem('pp.live', live)", live)
    page.goto(system.url + "/")
    page.wait_for_selector("[data-live]")
    page.evaluate(
        """() => { window.__long = [];
          new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push(e.duration); })
            .observe({ type: 'longtask' }); }"""
    )
    started = time.perf_counter()
    off_loop(publish_tokens(f"nats://127.0.0.1:{system.env['PP_NATS_PORT']}", thread_id, run_id, tokens, pace_s))
    page.wait_for_selector("[data-testid=message-assistant]:not([data-live])", timeout=120_000)
    elapsed = time.perf_counter() - started
    long_tasks = page.evaluate("window.__long")
    return {
        "tokens": tokens,
        "pace_ms": pace_s * 1000,
        "seconds_to_complete": round(elapsed, 2),
        "long_tasks": len(long_tasks),
        "long_tasks_over_100ms": sum(1 for d in long_tasks if d > 100),
        "longest_task_ms": round(max(long_tasks, default=0.0), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loads", type=int, default=15)
    parser.add_argument("--tokens", type=int, default=2000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        system = launch_up(Path(tmp), {"PP_RATE_LIMIT_USER_PER_MIN": "100000"})
        try:
            results = run(system, args.loads, args.tokens)
        finally:
            system.stop()
    out = ROOT / "bench" / "results" / "ui.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print_table(results)
    print(f"\nwritten to {out.relative_to(ROOT)}")
    return 0


def token_for(system: LaunchedSystem, user_id: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "policypal.cli", "token", "--tenant", DEMO_TENANT, "--user", user_id],
        env=system.env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def admin(system: LaunchedSystem) -> str:
    return f"postgresql://postgres@/postgres?host={system.data_dir / 'pg'}"


def run(system: LaunchedSystem, loads: int, tokens: int) -> dict:
    admin_url = admin(system)
    empty_user, full_user = f"bench-empty-{uuid.uuid4().hex[:6]}", f"bench-full-{uuid.uuid4().hex[:6]}"
    asyncio.run(seed(admin_url, full_user, 200, 100))
    asyncio.run(seed(admin_url, empty_user, 0, 0))
    results: dict = {"loads": loads}
    with sync_playwright() as playwright:
        browser = launch(playwright)
        for label, user_id, n_docs in (("empty", empty_user, 0), ("200 docs / 100 conversations", full_user, 200)):
            context = new_context(browser)
            page = context.new_page()
            shipped = first_load(page, f"{system.url}/#token={token_for(system, user_id)}", n_docs)
            times = load_times(page, system.url + "/", n_docs, loads)
            results[label] = {
                "interactive": summary(times),
                "shipped": shipped,
                "js_gzip_bytes": sum(s["gzip"] for s in shipped if s["kind"] == "script"),
                "js_raw_bytes": sum(s["bytes"] for s in shipped if s["kind"] == "script"),
                "css_gzip_bytes": sum(s["gzip"] for s in shipped if s["kind"] == "stylesheet"),
                "pdfjs_loaded": any("pdfjs" in s["url"] for s in shipped),
            }
            if n_docs:
                results["pdfjs_on_first_viewer_open"] = pdfjs_weight(page, system.url)
                results["streaming"] = [stream_smoothness(page, system, user_id, tokens, pace) for pace in (0.005, 0.0)]
            context.close()
        browser.close()
    return results


def print_table(results: dict) -> None:
    print(f"{'account':32} {'interactive p50':>16} {'p99':>8} {'JS gzip':>10} {'JS raw':>10} {'CSS gzip':>9}")
    for label in ("empty", "200 docs / 100 conversations"):
        r = results[label]
        print(
            f"{label:32} {r['interactive']['p50_ms']:>13.0f} ms {r['interactive']['p99_ms']:>5.0f} ms"
            f" {r['js_gzip_bytes'] / 1024:>7.1f} KB {r['js_raw_bytes'] / 1024:>7.1f} KB"
            f" {r['css_gzip_bytes'] / 1024:>6.1f} KB"
        )
    pdf = results["pdfjs_on_first_viewer_open"]
    print(f"pdf.js on first viewer open (not before): {sum(v['gzip'] for v in pdf.values()) / 1024:.0f} KB gzipped")
    print(f"\n{'streamed answer':32} {'complete':>9} {'long tasks':>11} {'>100 ms':>8} {'longest':>9}")
    for s in results["streaming"]:
        label = f"{s['tokens']} tokens, " + (f"{s['pace_ms']:.0f} ms apart" if s["pace_ms"] else "all at once")
        print(
            f"{label:32} {s['seconds_to_complete']:>7.2f} s {s['long_tasks']:>11} {s['long_tasks_over_100ms']:>8}"
            f" {s['longest_task_ms']:>6.1f} ms"
        )


if __name__ == "__main__":
    raise SystemExit(main())
