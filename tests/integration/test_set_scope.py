"""A tagged set is a scope: a set of eight documents answers (the 5-document limit is for documents
tagged one by one), and more than five documents tagged one by one are refused with a clear message."""

from __future__ import annotations

import uuid

import pytest

from services.actions import worker as action_worker
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.helpers import ingested, read_events, turn_finished
from tests.integration.test_turn import services, start_turn

pytestmark = pytest.mark.integration

LICENCES = ("mit", "bsd-3-clause", "apache-2.0", "mpl-2.0", "cc0-1.0", "psf-2.0", "artistic-1.0", "lgpl-3.0")


async def turn(infra, tenant_id, user_id, message, **fields) -> list[dict]:
    thread_id = uuid.uuid4()
    cmd = await start_turn(infra, tenant_id, user_id, thread_id, message, **fields)
    return await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(cmd.run_id))


async def test_a_set_of_eight_documents_answers_from_the_whole_set(infra, tenant, embedder):
    tenant_id, user_id = tenant
    summarize = lambda s: action_worker.serve_action(infra, s, "summarize")  # noqa: E731
    async with running(*services(infra), summarize):
        ids = []
        for name in LICENCES:
            cmd = await ingested(
                infra,
                tenant_id,
                user_id,
                EXAMPLES / "eval" / "texts" / f"{name}.txt",
                title=name.upper(),
                set_name="Open-source licences",
            )
            ids.append(str(cmd.document_id))
        async with tenant_tx(infra.db, tenant_id, user_id) as conn:
            (row,) = await docs.documents_by_ids(conn, [uuid.UUID(ids[0])])
        set_id = row["set_id"]

        asked = await turn(
            infra,
            tenant_id,
            user_id,
            "Must the copyright notice be kept in copies?",
            action="inquire",
            tagged_set_ids=[set_id],
        )
        summary = await turn(infra, tenant_id, user_id, "Summarize these", action="summarize", tagged_set_ids=[set_id])
        one_by_one = await turn(
            infra,
            tenant_id,
            user_id,
            "Summarize these",
            action="summarize",
            tiptap_json={
                "type": "doc",
                "content": [
                    {
                        "type": "paragraph",
                        "content": [
                            {"type": "mention", "attrs": {"id": doc_id, "label": name, "category": "document"}}
                            for doc_id, name in zip(ids[:6], LICENCES, strict=False)
                        ],
                    }
                ],
            },
        )

    found = next(e["docs_found"] for e in asked if e["type"] == "status" and e.get("docs_found"))
    assert sorted(d["id"] for d in found) == sorted(ids)  # the whole set is the scope
    answer = asked[-1]
    assert answer["type"] == "response" and answer["citations"], answer
    assert {c["document_id"] for c in answer["citations"]} <= set(ids)

    assert summary[-1]["type"] == "response", summary[-1]
    assert len({c["document_id"] for c in summary[-1]["citations"]}) == len(LICENCES)

    refused = one_by_one[-1]
    assert refused["type"] == "error" and "at most 5 documents tagged one by one" in refused["message"], refused
