"""One embedding service for the whole system (issue 15), through real `up` processes.

Only the `embedder` worker holds a model; the gateway, resolver, retrieval, ingest and action
workers embed over `pp.rpc.embed`. When the service is stopped, a chat turn that needs vectors
ends with an `error` event after the RPC timeout, retrieval still answers by keywords, and an
upload waits for the service instead of failing; the supervisor restarts a killed service.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import nats
import psutil
import pytest

from shared.contracts import SearchRequest, SearchResponse
from shared.runtime.launcher import launch_up
from tests.conftest import EXAMPLES
from tests.e2e.conftest import System
from tests.e2e.helpers import ask, terminal, upload, wait_ingested

pytestmark = pytest.mark.e2e

PROBE = Path(__file__).parent / "probe"
MODEL_MODULES = ("torch", "sentence_transformers", "transformers", "onnxruntime")
EMBED_TIMEOUT_S = 2.0


@pytest.fixture(scope="module")
def lean(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[System, Path]]:
    modules_dir = tmp_path_factory.mktemp("modules")
    launched = launch_up(
        tmp_path_factory.mktemp("up-lean"),
        {
            "PYTHONPATH": str(PROBE),
            "PP_TEST_MODULES_DIR": str(modules_dir),
            "PP_EMBED_TIMEOUT_S": str(EMBED_TIMEOUT_S),
            "PP_SECRET_KEY": "e2e-secret-0123456789abcdef0123456789",
        },
    )
    yield System(launched), modules_dir
    launched.stop()


def worker(system: System, *needle: str) -> psutil.Process:
    for child in psutil.Process(system.process.pid).children(recursive=True):
        if all(n in child.cmdline() for n in needle):
            return child
    raise AssertionError(f"no process with {needle}")


def inquire(system: System, document_id: str, question: str) -> dict:
    with system.client() as client:
        return terminal(ask(client, question, action="inquire", tagged_doc_ids=[document_id]))


def until_ready(client: httpx.Client, document_id: str) -> dict:
    """The document once `ready` (polled: its events stream would follow a ready document to the
    end of its vectors, which wait for the stopped embedding service)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        row = client.get(f"/v1/documents/{document_id}").json()
        if row["status"] in ("ready", "failed"):
            return row
        time.sleep(0.5)
    raise AssertionError(f"document {document_id} not ready: {row}")


def search_over_bus(system: System, document_id: str, query: str) -> SearchResponse:
    async def call() -> SearchResponse:
        nc = await nats.connect(f"nats://127.0.0.1:{system.launched.env['PP_NATS_PORT']}")
        try:
            request = SearchRequest(
                tenant_id=uuid.UUID("00000000-0000-4000-8000-000000000001"),
                user_id="00000000-0000-4000-8000-0000000000aa",
                query_text=query,
                scope={"doc_ids": [document_id]},
            )
            msg = await nc.request("pp.rpc.retrieval.search", request.model_dump_json().encode(), timeout=30)
            return SearchResponse.model_validate_json(msg.data)
        finally:
            await nc.close()

    return asyncio.run(call())


@pytest.fixture(scope="module")
def policy(lean) -> dict:
    system, _ = lean
    with system.client() as client:
        document = upload(client, EXAMPLES / "data-retention-policy.pdf", "Retention", doc_type="company_policy")
        return wait_ingested(client, document["id"])


def test_a_turn_is_answered_through_the_embedding_service(lean, policy):
    system, _ = lean
    answer = inquire(system, policy["id"], "How long are job applicant records kept?")
    assert answer["event"] == "response" and "twelve months" in answer["data"]["response"]
    assert search_over_bus(system, policy["id"], "CCTV footage").mode == "vector"


def test_while_the_service_is_stopped_turns_fail_clearly_search_uses_keywords_and_vectors_wait(lean, policy):
    system, _ = lean
    embedder = worker(system, "worker", "embedder")
    embedder.send_signal(signal.SIGSTOP)
    try:
        started = time.monotonic()
        failed = inquire(system, policy["id"], "How is CCTV footage handled?")
        assert failed["event"] == "error" and failed["data"]["code"] == "embedding_unavailable", failed
        assert time.monotonic() - started < 60
        fallback = search_over_bus(system, policy["id"], "CCTV footage retention")
        assert fallback.mode == "keyword" and fallback.chunks
        with system.client() as client:
            waiting = upload(client, EXAMPLES / "storage-limitation-regulation.pdf", "Regulation")
            # Ready at words (the default) needs no embedder: searchable, every vector still to come.
            searchable = until_ready(client, waiting["id"])
            assert searchable["status"] == "ready" and searchable["vectors_pending"] == searchable["chunk_count"] > 0
            assert search_over_bus(system, waiting["id"], "storage limitation").chunks
            time.sleep(3 * EMBED_TIMEOUT_S)
            assert client.get(f"/v1/documents/{waiting['id']}").json()["vectors_pending"] == searchable["chunk_count"]
    finally:
        embedder.send_signal(signal.SIGCONT)
    with system.client() as client:
        done = wait_ingested(client, waiting["id"])  # a ready document's stream runs to its vectors' end
    assert done["status"] == "ready" and done["chunk_count"] > 0 and done["vectors_pending"] == 0


def test_a_killed_embedding_service_is_restarted_and_answers_again(lean, policy):
    system, _ = lean
    killed = worker(system, "worker", "embedder")
    killed.send_signal(signal.SIGKILL)
    killed.wait(10)
    deadline = time.monotonic() + 60
    answer = None
    while time.monotonic() < deadline:
        answer = inquire(system, policy["id"], "How long is CCTV footage kept?")
        if answer["event"] == "response":
            break
        time.sleep(1)
    assert answer and answer["event"] == "response" and "thirty days" in answer["data"]["response"], answer
    assert worker(system, "worker", "embedder").pid != killed.pid


def test_only_the_embedding_service_imports_a_model_runtime(lean, policy):
    """After the turns above, every process reports its `sys.modules` (tests/e2e/probe)."""
    system, modules_dir = lean
    assert inquire(system, policy["id"], "Who owns this policy?")["event"] == "response"
    children = psutil.Process(system.process.pid).children(recursive=True)
    roles = {}
    for child in children:
        argv = child.cmdline()
        if "policypal.cli" in argv and ("worker" in argv or "gateway" in argv):
            roles[child.pid] = argv[argv.index("--action") + 1] if "--action" in argv else argv[-1]
            child.send_signal(signal.SIGUSR1)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not all((modules_dir / f"{pid}.json").exists() for pid in roles):
        time.sleep(0.2)
    by_role = {
        role: set(json.loads((modules_dir / f"{pid}.json").read_text())["modules"]) for pid, role in roles.items()
    }
    lean_roles = {"gateway", "ingest", "resolver", "retrieval", "summarize", "inquire", "compare", "audit"}
    assert lean_roles | {"embedder"} == set(by_role), sorted(by_role)
    for role in lean_roles:
        loaded = sorted(m for m in by_role[role] if m.split(".")[0] in MODEL_MODULES)
        assert not loaded, f"{role} imported {loaded[:5]}"
    assert "onnxruntime" in by_role["embedder"] and "torch" not in by_role["embedder"]
