"""The README demo, end to end: a PDF in, a streamed and cited answer out, through real processes."""

from __future__ import annotations

import os
import signal
import time

import psutil
import pytest

from tests.e2e.helpers import ask, ingest_demo_policy, random_id, sse_events, terminal, upload, wait_ingested

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def policy(system) -> dict:
    with system.client() as client:
        ready = ingest_demo_policy(client)
    assert ready["status"] == "ready" and ready["page_count"] == 2 and ready["chunk_count"] > 0
    return ready


def test_upload_then_cited_answer_over_sse_and_a_second_turn(system, policy):
    with system.client() as client:
        events = ask(
            client, "How long are job applicant records kept?", action="inquire", tagged_doc_ids=[policy["id"]]
        )
        nodes = [e["data"]["node"] for e in events if e["event"] == "status"]
        # action="inquire" was given: no "Clarifying intent..." (feature spec, PalReasoning edge cases).
        assert nodes[0] == "doc_resolver" and "inquire" in nodes and nodes[-1] == "format_response"
        assert all(e["id"] and int(e["id"]) > 0 for e in events)
        answer = terminal(events)
        assert answer["event"] == "response"
        data = answer["data"]
        assert "twelve months" in data["response"] and "[1]" in data["response"]
        assert data["citations"][0]["document_id"] == policy["id"]
        assert data["citations"][0]["title"] == "Northwind Retention Policy (2026)"
        assert data["citations"][0]["page"] == 1
        thread_id = data["thread_id"]

        follow_up = terminal(ask(client, "What about CCTV footage?", action="inquire", thread_id=thread_id))
        assert follow_up["data"]["thread_id"] == thread_id and "thirty days" in follow_up["data"]["response"]

        history = client.get(f"/v1/chat/history/{thread_id}").json()
        assert [m["role"] for m in history["messages"]] == ["user", "assistant", "user", "assistant"]
        assert history["messages"][1]["metadata"]["citations"] and history["pending_interrupt"] is None


def test_reconnect_with_last_event_id_resumes_without_loss(system, policy):
    with system.client() as client:
        first = sse_events(
            client,
            "POST",
            "/v1/chat",
            stop_after=2,
            json={"message": "Who owns this policy?", "action": "inquire", "tagged_doc_ids": [policy["id"]]},
        )
        thread_id, last_id = first[0]["data"]["thread_id"], first[-1]["id"]
        rest = sse_events(client, "GET", f"/v1/threads/{thread_id}/events", headers={"Last-Event-ID": last_id})
    ids = [int(e["id"]) for e in first + rest]
    assert ids == sorted(set(ids)), "events lost order or were duplicated"
    assert terminal(rest)["event"] == "response"
    assert "Data Protection Officer" in terminal(rest)["data"]["response"]


def test_bad_input_is_answered_cleanly(system, policy, tmp_path):
    with system.client() as client:
        anonymous = client.post("/v1/chat", json={"message": "hi"}, headers={"Authorization": ""})
        assert anonymous.status_code == 401 and anonymous.json()["error"]["code"] == "unauthorized"
        forged = client.post("/v1/chat", json={"message": "hi"}, headers={"Authorization": "Bearer not.a.jwt"})
        assert forged.status_code == 401 and "invalid token" in forged.json()["error"]["message"]

        malformed = client.post("/v1/chat", json={"message": "", "tagged_doc_ids": ["x"]})
        assert malformed.status_code == 422
        assert malformed.json()["error"]["message"].startswith("message")
        fields = {d["field"] for d in malformed.json()["error"]["details"]}
        assert {"message", "tagged_doc_ids.0"} <= fields

        unknown = client.post("/v1/chat", json={"message": "hi", "tagged_doc_ids": [random_id()]})
        assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "not_found"
        assert client.get(f"/v1/documents/{random_id()}").status_code == 404
        assert client.get(f"/v1/chat/history/{random_id()}").status_code == 404

        garbage = tmp_path / "report.pdf"
        garbage.write_bytes(os.urandom(4096))
        document = upload(client, garbage, "Not really a PDF")
        failed = wait_ingested(client, document["id"])
        assert failed["status"] == "failed" and "not a PDF" in failed["error"]

    # Another tenant's user sees the document as non-existent.
    other = system.mint("--tenant", random_id(), "--create", "Eve Co", "--user", "eve")
    with system.client(token=other) as stranger:
        assert stranger.get(f"/v1/documents/{policy['id']}").status_code == 404
        refused = stranger.post("/v1/chat", json={"message": "hi", "tagged_doc_ids": [policy["id"]]})
        assert refused.status_code in (403, 404)
    same_tenant_other_user = system.mint("--user", "someone-else")
    with system.client(token=same_tenant_other_user) as colleague:
        assert colleague.get(f"/v1/documents/{policy['id']}").status_code == 404
        assert colleague.get(f"/v1/documents/{policy['id']}/events").status_code == 404
        assert colleague.delete(f"/v1/documents/{policy['id']}").status_code == 404
        assert colleague.post("/v1/chat", json={"message": "hi", "tagged_doc_ids": [policy["id"]]}).status_code == 404


def _worker(system, *needle: str) -> psutil.Process:
    up = psutil.Process(system.process.pid)
    for child in up.children(recursive=True):
        cmdline = child.cmdline()
        if all(n in cmdline for n in needle):
            return child
    raise AssertionError(f"no worker with {needle}")


def test_worker_killed_before_ack_is_redelivered_and_the_turn_completes(system, policy):
    """Freeze retrieval so the inquire worker holds the command, SIGKILL it, and watch the turn finish."""
    retrieval = _worker(system, "worker", "retrieval")
    inquire = _worker(system, "--action", "inquire")
    retrieval.send_signal(signal.SIGSTOP)
    try:
        with system.client() as client:
            events = sse_events(
                client,
                "POST",
                "/v1/chat",
                stop_when=lambda e: e["data"].get("node") == "inquire",
                json={
                    "message": "How are hard drives disposed of?",
                    "action": "inquire",
                    "tagged_doc_ids": [policy["id"]],
                },
            )
            assert events[-1]["data"].get("node") == "inquire", events
            inquire.send_signal(signal.SIGKILL)
            inquire.wait(10)
            retrieval.send_signal(signal.SIGCONT)
            thread_id = events[0]["data"]["thread_id"]
            rest = sse_events(
                client, "GET", f"/v1/threads/{thread_id}/events", headers={"Last-Event-ID": events[-1]["id"]}
            )
    finally:
        retrieval.send_signal(signal.SIGCONT)
    answer = terminal(rest)
    assert answer["event"] == "response" and "certificate of destruction" in answer["data"]["response"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # the supervisor restarted the killed worker
        try:
            assert _worker(system, "--action", "inquire").pid != inquire.pid
            break
        except AssertionError:
            time.sleep(0.5)
    with system.client() as client:
        history = client.get(f"/v1/chat/history/{thread_id}").json()
    assert [m["role"] for m in history["messages"]] == ["user", "assistant"]
