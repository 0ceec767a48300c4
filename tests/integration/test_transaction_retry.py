"""Two writers that deadlock both finish: the victim's transaction runs again, not a 503.

Two transactions update the same two document rows in opposite orders, each waiting until the
other holds its first row, so Postgres must abort one of them as a deadlock's victim.
"""

from __future__ import annotations

import asyncio
import uuid

import pytest

from services.gateway.routes.documents import document_fields
from shared.contracts import IngestCommand
from shared.db import documents as docs
from shared.db.conn import Conn
from shared.db.pool import in_tenant_tx, tenant_tx
from shared.runtime.service import Infra

pytestmark = pytest.mark.integration


async def insert_document(infra: Infra, tenant_id: uuid.UUID, user_id: str, title: str) -> uuid.UUID:
    """A queued document's row, as the gateway writes it for an upload."""
    document_id = uuid.uuid4()
    cmd = IngestCommand(
        tenant_id=tenant_id,
        user_id=user_id,
        document_id=document_id,
        object_name=f"{tenant_id}/{document_id}",
        filename=f"{title}.txt",
        title=title,
    )
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        await docs.insert_document(conn, document_fields(cmd, title.encode(), set_id=None, mime="text/plain"))
    return document_id


async def test_a_deadlock_victim_runs_again_and_both_writes_land(infra: Infra, tenant):
    tenant_id, user_id = tenant
    first = await insert_document(infra, tenant_id, user_id, "first")
    second = await insert_document(infra, tenant_id, user_id, "second")
    holding = {"a": asyncio.Event(), "b": asyncio.Event()}
    runs = {"a": 0, "b": 0}

    def writer(name: str, other: str, order: tuple[uuid.UUID, uuid.UUID]):
        async def work(conn: Conn) -> None:
            runs[name] += 1
            await append_mark(conn, order[0], name)
            holding[name].set()
            await holding[other].wait()
            await append_mark(conn, order[1], name)

        return work

    await asyncio.wait_for(
        asyncio.gather(
            in_tenant_tx(infra.db, tenant_id, user_id, writer("a", "b", (first, second))),
            in_tenant_tx(infra.db, tenant_id, user_id, writer("b", "a", (second, first))),
        ),
        timeout=30,
    )

    assert sorted(runs.values()) == [1, 2], "exactly one of the two ran again"
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        for document_id in (first, second):
            row = await docs.get_document(conn, document_id)
            assert row is not None
            assert sorted(row["error"]) == ["a", "b"], "each writer's mark is on each row, once"


async def append_mark(conn: Conn, document_id: uuid.UUID, mark: str) -> None:
    await conn.execute(
        "UPDATE documents SET error = COALESCE(error, '') || %s WHERE id = %s", (mark, document_id)
    )
