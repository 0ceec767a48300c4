"""PolicyPal vs the LangGraph dev server on the same graph and engine, same machine, same run.

    policypal bench peer [--turns 20] [--venv build/peer-venv]

The peer is `langgraph dev` (langgraph-cli[inmem] / langgraph-api, in-memory runtime and
checkpointer) serving `bench/peer_graph.py` — the same compiled graph with every node, the offline
engine and the same embedding/retrieval services — driven through `langgraph-sdk`
(`client.runs.stream`, one new thread per turn). Ours: `POST /v1/chat` over HTTP/SSE through the
gateway, the bus and the workers, checkpoints in Postgres. Interleaved turn by turn; reported: end
of stream p50/p95/p99 both ways and the ratio.

The peer lives in its own venv (`--venv`, created on first use: it sees ours through a .pth file
and adds only what the peer needs): langgraph-api pins jsonschema-rs 0.44, which breaks our test
extra's schemathesis (0.60), and brings uvloop and httptools, which uvicorn would silently pick up
for our gateway in every other benchmark.
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
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import httpx
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from bench.harness import machine, summary, upload_and_wait
from bench.turn import QUESTION, distributed_turn, system_settings
from shared.config import Settings
from shared.contracts import ChatCommand
from shared.db import conversations
from shared.db.pool import Database, open_database, tenant_tx
from shared.graph.state import turn_input
from shared.runtime.embedded import free_port
from shared.runtime.launcher import LaunchedSystem, launch_up

ROOT = Path(__file__).resolve().parent.parent
PEER_PACKAGES = ["langgraph-cli[inmem]==0.4.40", "langgraph-api==0.16.7", "langgraph-runtime-inmem==0.36.7"]


def peer_venv(path: Path) -> Path:
    """The peer's venv: ours visible through a .pth, the langgraph server packages on top."""
    langgraph = path / "bin" / "langgraph"
    if langgraph.exists():
        return langgraph
    subprocess.run([sys.base_prefix + "/bin/python3", "-m", "venv", str(path)], check=True)
    site = next((path / "lib").glob("python3*/site-packages"))
    ours = next((Path(sys.prefix) / "lib").glob("python3*/site-packages"))
    (site / "zz_policypal.pth").write_text(f"import site; site.addsitedir({str(ours)!r})\n")
    subprocess.run([str(path / "bin" / "pip"), "install", "-q", *PEER_PACKAGES], check=True)
    return langgraph


def start_peer(langgraph: Path, work: Path) -> tuple[subprocess.Popen, str]:
    config = work / "langgraph.json"
    graphs = {"policypal": f"{ROOT}/bench/peer_graph.py:graph"}
    config.write_text(json.dumps({"dependencies": [str(ROOT)], "graphs": graphs}))
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    log = (work / "langgraph-dev.log").open("w")
    proc = subprocess.Popen(
        [str(langgraph), "dev", "--no-browser", "--no-reload", "--allow-blocking",
         "--port", str(port), "--config", str(config)],
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{url}/ok", timeout=2)
            return proc, url
        except OSError:
            time.sleep(0.5)
    proc.terminate()
    raise RuntimeError(f"langgraph dev did not start:\n{(work / 'langgraph-dev.log').read_text()[-3000:]}")


async def peer_input(settings: Settings, db: Database, body: dict[str, Any]) -> dict[str, Any]:
    """The graph input of a turn on a new conversation (written first, as the in-process runner does:
    the nodes record usage and messages against it)."""
    thread_id = uuid.uuid4()
    tenant, user = settings.demo_tenant_id, settings.demo_user_id
    async with tenant_tx(db, tenant, user) as conn:
        await conversations.create_conversation(conn, thread_id, uuid.UUID(tenant), user)
    cmd = ChatCommand(
        run_id=uuid.uuid4(),
        tenant_id=settings.demo_tenant_id,
        user_id=settings.demo_user_id,
        thread_id=thread_id,
        **body,
    )
    return json.loads(json.dumps(turn_input(cmd), default=lambda m: {"type": m.type, "content": m.content, "id": m.id}))


async def peer_turn(client: LangGraphClient, settings: Settings, db: Database, body: dict[str, Any]) -> float:
    thread = await client.threads.create()
    run_input = await peer_input(settings, db, body)
    started = time.perf_counter()
    answer = None
    async for part in client.runs.stream(thread["thread_id"], "policypal", input=run_input, stream_mode="updates"):
        if part.event == "error":
            raise RuntimeError(f"langgraph dev run failed: {part.data}")
        if part.event == "updates" and isinstance(part.data, dict):
            answer = (part.data.get("policypal") or {}).get("response") or answer
    if not answer:
        raise RuntimeError("langgraph dev run ended without an answer")
    return time.perf_counter() - started


async def measure(system: LaunchedSystem, peer_url: str, body: dict[str, Any], turns: int) -> dict[str, Any]:
    settings = system_settings(system)
    peer = get_client(url=peer_url)
    db = await open_database(settings)
    ours: list[float] = []
    theirs: list[float] = []
    headers = {"Authorization": f"Bearer {system.token}"}
    async with httpx.AsyncClient(base_url=system.url, headers=headers, timeout=120) as http:
        for _ in range(3):  # warm both
            await distributed_turn(http, body)
            await peer_turn(peer, settings, db, body)
        for _ in range(turns):
            ours.append((await distributed_turn(http, body))[1])
            theirs.append(await peer_turn(peer, settings, db, body))
    await db.close()
    o, t = summary(ours), summary(theirs)
    return {"policypal": o, "langgraph_dev": t, "ratio_p50": round(t["p50_ms"] / o["p50_ms"], 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--venv", type=Path, default=ROOT / "build" / "peer-venv")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "peer.json")
    args = parser.parse_args(argv)
    langgraph = peer_venv(args.venv)
    env = {"PP_RATE_LIMIT_USER_PER_MIN": "1000000", "PP_RATE_LIMIT_TENANT_PER_MIN": "1000000"}
    env["PP_LLM_PROVIDER"] = "offline"
    system = launch_up(Path(tempfile.mkdtemp(prefix="pp-bench-peer-")), env)
    peer = None
    try:
        with httpx.Client(base_url=system.url, headers={"Authorization": f"Bearer {system.token}"}, timeout=120) as c:
            policy = upload_and_wait(c, ROOT / "examples" / "data-retention-policy.pdf", "Retention", "company_policy")
        body = {"message": QUESTION, "action": "inquire", "tagged_doc_ids": [policy]}
        system_settings(system)  # the peer's graph reads the same PP_* settings from the environment
        peer, url = start_peer(langgraph, Path(tempfile.mkdtemp(prefix="pp-bench-peer-lg-")))
        results = asyncio.run(measure(system, url, body, args.turns))
    finally:
        if peer is not None:
            peer.terminate()
            peer.wait(30)
        system.stop()
    print(f"machine: {machine()}")
    print(f"{'':<16}{'p50':>8}{'p95':>8}{'p99':>8}  (ms, POST → end of stream)")
    for name in ("policypal", "langgraph_dev"):
        r = results[name]
        print(f"{name:<16}{r['p50_ms']:>8}{r['p95_ms']:>8}{r['p99_ms']:>8}")
    print(f"langgraph dev / policypal, p50: {results['ratio_p50']}x")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": machine(), "engine": "offline", "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
