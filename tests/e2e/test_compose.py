"""docker-compose.yml as shipped, run for real: the 3-node JetStream cluster, Postgres + pgvector,
the gateway and every worker (action workers replicated) in the images deploy/images.sh builds.

The README demo turn answers through the published port (127.0.0.1 only), and `down` leaves no
container, network or volume behind. Skipped with the reason where there is no Docker engine or
the images are not built; PP_TEST_COMPOSE=required (CI, .ci/run) turns that skip into a failure.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator

import httpx
import pytest

from bench.compose_stack import IMAGES, ComposeStack, unavailable, wait_ready
from tests.e2e.helpers import ask, ingest_demo_policy, terminal

pytestmark = pytest.mark.e2e

REPLICATED = {"action-inquire": 2, "action-summarize": 2, "action-compare": 2, "resolver": 2, "retrieval": 2}


def need_engine_and_images() -> None:
    reason = unavailable()
    if reason:
        if os.environ.get("PP_TEST_COMPOSE") == "required":
            pytest.fail(f"PP_TEST_COMPOSE=required but {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def stack() -> Iterator[ComposeStack]:
    need_engine_and_images()
    stack = ComposeStack(project=f"pp-e2e-{uuid.uuid4().hex[:8]}")
    try:
        stack.up()
        yield stack
    except Exception:
        print(stack.logs())
        raise
    finally:
        stack.down()


def test_compose_stack_answers_the_demo_turn_and_leaves_nothing_behind(stack: ComposeStack) -> None:
    for service, replicas in REPLICATED.items():
        assert len(stack.containers(service)) == replicas, service
    ports = stack.compose("port", "gateway", "8000").stdout.strip()
    assert ports == f"127.0.0.1:{stack.http_port}"

    token = stack.seed_and_token()
    wait_ready(stack.url)
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=stack.url, headers=headers, timeout=httpx.Timeout(180.0)) as client:
        policy = ingest_demo_policy(client)
        assert policy["status"] == "ready" and policy["chunk_count"] > 0
        events = ask(client, "How long are job applicant records kept?", action="inquire",
                     tagged_doc_ids=[policy["id"]])  # fmt: skip
    answer = terminal(events)
    assert answer["event"] == "response", answer
    assert "twelve months" in answer["data"]["response"] and "[1]" in answer["data"]["response"]
    citation = answer["data"]["citations"][0]
    assert citation["document_id"] == policy["id"] and citation["page"] == 1

    # The streams are replicated on all three nodes (PP_STREAM_REPLICAS=3 in the compose file).
    jsz = stack.monitor("nats-2", "/jsz?streams=true")
    streams = {s["name"]: s for a in jsz["account_details"] for s in a["stream_detail"]}
    cluster = streams["PP_COMMANDS"]["cluster"]
    assert cluster["leader"] and len(cluster["replicas"]) == 2, cluster

    stack.down()
    assert stack.leftovers() == []


def test_every_image_runs_as_an_unprivileged_user() -> None:
    need_engine_and_images()
    for image in IMAGES:
        user = subprocess.run(
            ["docker", "run", "--rm", "--entrypoint", "id", image, "-u"], capture_output=True, text=True, check=True
        ).stdout.strip()
        assert user.isdigit() and int(user) != 0, (image, user)


def test_postgres_image_refuses_to_start_without_a_password() -> None:
    """No silent passwordless superuser: the first start needs POSTGRES_PASSWORD, and says so."""
    need_engine_and_images()
    run = subprocess.run(["docker", "run", "--rm", "policypal-postgres:local"], capture_output=True, text=True)
    assert run.returncode == 1 and "POSTGRES_PASSWORD is required" in run.stderr
