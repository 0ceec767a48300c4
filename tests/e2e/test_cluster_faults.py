"""Losing NATS nodes under load loses no turn and no upload (`policypal up --nats-cluster 3`).

Three clustered nats-server processes, every stream and the upload bucket on 3 replicas. While
users send inquire turns and an uploader posts a PDF, two followers of the commands stream and
then its leader are killed with SIGKILL (each restarted after a few seconds). Afterwards every
accepted turn has exactly one terminal event (live and in a full replay), one assistant message,
and every replayed stream contains every event seen live; every upload is ready with no chunk
stored twice. The seconds without service around each kill are printed, never asserted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from bench.chaos_load import chaos
from shared.runtime.launcher import LaunchedSystem, launch_up
from shared.runtime.nats_cluster import load_nodes, node_health
from tests.conftest import EXAMPLES
from tests.e2e.helpers import ingest_demo_policy

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster_system(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LaunchedSystem]:
    launched = launch_up(
        tmp_path_factory.mktemp("cluster"),
        {
            # Longer than a stage can block on a publish during a leader election (the JetStream
            # request timeout plus publish's retries): a shorter wait redelivers a command while its
            # first delivery still runs, and the two race on one checkpoint (docs/operating.md, the NATS kills).
            "PP_ACK_WAIT_S": "30",
            "PP_SECRET_KEY": "e2e-secret-0123456789abcdef0123456789",
            "PP_RATE_LIMIT_USER_PER_MIN": "10000",
            "PP_RATE_LIMIT_TENANT_PER_MIN": "10000",
        },
        timeout_s=300.0,
        args=["--nats-cluster", "3"],
    )
    yield launched
    launched.stop()


def test_cluster_is_three_healthy_nodes_with_replicated_streams(cluster_system: LaunchedSystem) -> None:
    nodes = load_nodes(cluster_system.data_dir / "nats-cluster")
    assert [n.name for n in nodes] == ["nats-1", "nats-2", "nats-3"]
    assert {n.name: node_health(n) for n in nodes} == {n.name: None for n in nodes}
    jsz = httpx.get(f"http://127.0.0.1:{nodes[0].http_port}/jsz?streams=true&config=true").json()
    streams = {d["name"]: d for a in jsz["account_details"] for d in a["stream_detail"]}
    assert {"PP_COMMANDS", "PP_EVENTS", "PP_DLQ", "OBJ_pp-uploads"} <= set(streams)
    for name in ("PP_COMMANDS", "PP_EVENTS", "PP_DLQ", "OBJ_pp-uploads"):
        assert streams[name]["config"]["num_replicas"] == 3, name
        assert len(streams[name]["cluster"]["replicas"]) == 2, name


def test_every_worker_is_ready_on_its_health_port(cluster_system: LaunchedSystem) -> None:
    """`up` waited for these; /metrics carries each action's backlog for scaling."""
    ports = json.loads((cluster_system.data_dir / "health.json").read_text())
    assert set(ports) == {"embedder", "ingest", "resolver", "retrieval"} | {
        f"action-{a}" for a in ("summarize", "inquire", "compare", "audit")
    }
    for name, port in ports.items():
        assert httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200, name
        assert httpx.get(f"http://127.0.0.1:{port}/readyz").status_code == 200, name
    metrics = httpx.get(f"http://127.0.0.1:{ports['action-inquire']}/metrics").text
    assert 'pp_consumer_pending_messages{consumer="action-inquire"}' in metrics
    assert 'pp_consumer_ack_pending_messages{consumer="action-inquire"}' in metrics


def test_killing_nodes_loses_and_duplicates_nothing(cluster_system: LaunchedSystem) -> None:
    headers = {"Authorization": f"Bearer {cluster_system.token}"}
    with httpx.Client(base_url=cluster_system.url, headers=headers, timeout=120.0) as client:
        document = ingest_demo_policy(client)
    body = {
        "message": "How long are job applicant records kept?",
        "action": "inquire",
        "tagged_doc_ids": [document["id"]],
    }
    kills, result, _ = chaos(
        cluster_system.url,
        cluster_system.token,
        cluster_system.data_dir,
        body,
        EXAMPLES / "data-retention-policy.pdf",
        users=3,
        rounds=1,
        down_s=4.0,
        settle_s=6.0,
    )
    for kill in kills:
        print(
            f"killed {kill.victim} ({kill.role}): without service {kill.outage_s:.2f}s (turns),"
            f" {kill.upload_outage_s:.2f}s (uploads)"
        )
    print(f"turns {result.turns}, uploads {result.uploads}, refused {result.refused}")
    assert [k.role for k in kills] == ["follower", "follower", "stream leader"]
    assert result.turns >= 3 and result.uploads >= 2, result
    assert result.problems == []
    assert (result.lost_turns, result.duplicated_turns, result.lost_uploads) == (0, 0, 0)
    assert (result.duplicated_chunks, result.duplicated_usage, result.replay_missing) == (0, 0, 0)
