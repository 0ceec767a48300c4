"""Small helpers the integration tests share: submitting documents and reading event streams."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

from nats.js.api import ConsumerConfig, DeliverPolicy

from shared.bus.ingest_jobs import submit_ingest
from shared.contracts import TERMINAL_EVENT_TYPES, IngestCommand
from shared.runtime.service import Infra


async def submit_file(infra: Infra, tenant_id: uuid.UUID, user_id: str, path: Path, **fields) -> IngestCommand:
    """The integrator contract: object in `pp-uploads`, then `pp.cmd.ingest` (titled after the file by default)."""
    return await submit_ingest(infra.bus, tenant_id, user_id, path, title=fields.pop("title", path.stem), **fields)


async def ingested(infra: Infra, tenant_id: uuid.UUID, user_id: str, path: Path, **fields) -> IngestCommand:
    """`submit_file`, then wait until the document is ready (or failed)."""
    cmd = await submit_file(infra, tenant_id, user_id, path, **fields)
    await read_events(infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_finished)
    return cmd


async def read_events(infra: Infra, subject: str, *, until, timeout: float = 60.0) -> list[dict]:
    """Every event on `subject` from the start of the stream until `until(event)` is true."""
    sub = await infra.bus.js.subscribe(
        subject,
        stream=infra.bus.subjects.events_stream,
        ordered_consumer=True,
        config=ConsumerConfig(deliver_policy=DeliverPolicy.ALL),
    )
    events: list[dict] = []
    try:
        async with asyncio.timeout(timeout):
            while True:
                msg = await sub.next_msg(timeout=timeout)
                event = json.loads(msg.data)
                event["_seq"] = msg.metadata.sequence.stream
                event["_headers"] = dict(msg.headers or {})
                events.append(event)
                if until(event):
                    return events
    finally:
        await sub.unsubscribe()


def ingest_finished(event: dict) -> bool:
    """Searchable (`ready`, vectors possibly still to come), failed, or a duplicate of a document."""
    return event.get("status") in ("ready", "failed", "duplicate")


def ingest_complete(event: dict) -> bool:
    """Both ingest phases over: every vector stored too (docs/ingest.md), failed, or a duplicate."""
    return event.get("status") in ("failed", "duplicate") or (
        event.get("status") == "ready" and event.get("stage") == "done"
    )


def turn_finished(run_id: uuid.UUID):
    return lambda event: event.get("type") in TERMINAL_EVENT_TYPES and event.get("run_id") == str(run_id)
