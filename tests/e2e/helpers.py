"""Reading SSE streams in e2e tests with a real client (httpx-sse)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import httpx
from httpx_sse import connect_sse

from tests.conftest import EXAMPLES

TERMINAL = {"response", "interrupt", "escalation", "error"}


def sse_events(
    client: httpx.Client, method: str, url: str, stop_after: int | None = None, stop_when=None, **kwargs
) -> list[dict]:
    events = []
    with connect_sse(client, method, url, **kwargs) as source:
        source.response.raise_for_status()
        for sse in source.iter_sse():
            if not sse.data:  # keep-alive comment lines surface as empty events in httpx-sse
                continue
            events.append({"id": sse.id, "event": sse.event, "data": json.loads(sse.data)})
            if (
                sse.event in TERMINAL
                or (stop_after and len(events) >= stop_after)
                or (stop_when and stop_when(events[-1]))
            ):
                break
    return events


def upload(client: httpx.Client, path: Path, title: str, **fields) -> dict:
    """Put a document in the library. Tests share one system and its example files, so the same
    bytes may already be there under another title: kept on purpose (the duplicate check has tests
    of its own in test_documents.py and tests/integration/test_document_versions.py)."""
    fields.setdefault("keep_duplicate", "true")
    with path.open("rb") as fh:
        response = client.post(
            "/v1/documents", files={"file": (path.name, fh, "application/pdf")}, data={"title": title, **fields}
        )
    assert response.status_code in (200, 202), response.text
    return response.json()


def wait_ingested(client: httpx.Client, document_id: str) -> dict:
    events = sse_events(client, "GET", f"/v1/documents/{document_id}/events")
    assert events, "no ingest events"
    return client.get(f"/v1/documents/{document_id}").json()


def ask(client: httpx.Client, message: str, **fields) -> list[dict]:
    return sse_events(client, "POST", "/v1/chat", json={"message": message, **fields})


def terminal(events: list[dict]) -> dict:
    ends = [e for e in events if e["event"] in TERMINAL]
    assert len(ends) == 1, events
    return ends[0]


def random_id() -> str:
    return str(uuid.uuid4())


def ingest_demo_policy(client: httpx.Client) -> dict:
    """The README demo's document (the Northwind retention policy), uploaded and ingested."""
    document = upload(
        client,
        EXAMPLES / "data-retention-policy.pdf",
        "Northwind Retention Policy",
        version="2026",
        doc_type="company_policy",
    )
    return wait_ingested(client, document["id"])


def leaves(history: list[dict]) -> list[dict]:
    """The states of a thread's `/lg` history that end a branch (no other state names them as parent)."""
    parents = {s["parent_checkpoint"]["checkpoint_id"] for s in history if s["parent_checkpoint"]}
    return [s for s in history if s["checkpoint"]["checkpoint_id"] not in parents]
