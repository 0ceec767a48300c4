"""The first run's sample document: something in the demo user's library to ask about at once.

On the first `up` of a data directory, the example company policy (`PP_SAMPLE_DOCUMENT`, by default
examples/data-retention-policy.pdf) is submitted for the demo user through the ordinary ingest
contract, so it is parsed, chunked and embedded like any upload. It is added once: a marker in the
data directory records that it was, so a user who deletes it does not get it back, and a library
that already has documents (an upgraded installation) gets nothing.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from shared.bus.connection import connect_bus
from shared.bus.ingest_jobs import submit_ingest
from shared.config import Settings
from shared.db import documents as docs
from shared.db.pool import open_database, tenant_tx

MARKER = "sample-document.seeded"
TITLE = "Northwind Data Retention Policy"
VERSION = "Example"


async def submit_file(
    settings: Settings, tenant_id: str, user_id: str, path: Path, **fields: str
) -> tuple[uuid.UUID, str]:
    """The file into the uploads object store, then `pp.cmd.ingest` (the integrator contract); the
    document's id and the subject its progress is reported on."""
    bus = await connect_bus(settings, name="policypal-ingest-cli")
    try:
        document_id = uuid.uuid4()
        await submit_ingest(bus, tenant_id, user_id, path, document_id=document_id, **fields)
        return document_id, bus.subjects.evt_ingest(document_id)
    finally:
        await bus.close()


async def seed_sample_document(settings: Settings) -> str | None:
    """Submit the sample for the demo user on a first run; what happened, in a line for the console."""
    path = settings.sample_document
    marker = settings.data_dir.resolve() / MARKER
    if path is None or marker.exists():
        return None
    if not path.is_file():
        return f"  no sample document at {path}: the demo library starts empty"
    db = await open_database(settings, max_size=1)
    try:
        async with tenant_tx(db, uuid.UUID(settings.demo_tenant_id), settings.demo_user_id) as conn:
            has_documents = bool(await docs.list_documents(conn))
    finally:
        await db.close()
    if not has_documents:
        await submit_file(
            settings,
            settings.demo_tenant_id,
            settings.demo_user_id,
            path,
            title=TITLE,
            version=VERSION,
            doc_type="company_policy",
        )
    marker.write_text(str(path))
    return None if has_documents else f"  sample document for the demo user: {TITLE} ({path.name})"
