"""Submitting a file for ingest as an integrator does (docs/asyncapi.yaml, `pp.cmd.ingest`): the
bytes into the uploads object store under `<tenant>/<document>`, then the command. One place for
the CLI's sample document and the benchmarks that ingest over the bus."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from shared.bus.connection import Bus
from shared.bus.publish import publish
from shared.contracts import IngestCommand


async def submit_ingest(bus: Bus, tenant_id: uuid.UUID | str, user_id: str, path: Path, **fields: Any) -> IngestCommand:
    """Store `path` and publish its ingest job (deduplicated on the bus by the document id); `fields`
    are the command's other fields (title, doc_type, …)."""
    document_id = fields.pop("document_id", None) or uuid.uuid4()
    object_name = f"{tenant_id}/{document_id}"
    await (await bus.uploads()).put(object_name, path.read_bytes())
    cmd = IngestCommand(
        tenant_id=tenant_id,
        user_id=user_id,
        object_name=object_name,
        filename=path.name,
        document_id=document_id,
        **fields,
    )
    await publish(bus, bus.subjects.cmd_ingest, cmd, msg_id=f"ingest:{document_id}")
    return cmd
