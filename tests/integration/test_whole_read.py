"""Issue #27, short documents: a tagged document one search reads whole is answered from it, not
asked `retrieval_low` for weak similarity alone (services/actions/whole_read.py), through the real
system (bus, ingest, retrieval, inquire worker, Postgres, the MIT licence's real text).

"Is it fine to bundle this in a paid app and sell it?" shares few words with the licence's
"… to sell copies of the Software", and its best passage is in the low tier. The licence is one
page: the search ranked all of it, so the answer is its closest passage, at low confidence, saying
that it may not answer directly and how to search further. The same question over a long bundle
of licences (more chunks than one search ranks) still asks, offering to search all documents. A
question naming what the short document never mentions still asks (test_unanswered.py).
"""

from __future__ import annotations

import pytest

from examples.eval.make_eval_pdfs import HERE as EVAL_DIR
from examples.eval.make_eval_pdfs import build_pdf
from services.actions.palassist import SEARCH_ALL
from services.actions.whole_read import unanswered_lead, whole_notice
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from tests.integration.conftest import running
from tests.integration.helpers import ingest_complete, read_events, submit_file
from tests.integration.test_actions import turn
from tests.integration.test_turn import services

pytestmark = pytest.mark.integration
QUESTION = "Is it fine to bundle this in a paid app and sell it?"
BUNDLE = ("mit", "apache-2.0", "gpl-3.0")


async def ingested(infra, tenant, pdf, title):
    tenant_id, user_id = tenant
    cmd = await submit_file(infra, tenant_id, user_id, pdf, title=title, doc_type="regulatory_source")
    await read_events(infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_complete, timeout=300)
    return cmd.document_id


async def test_a_short_tagged_document_is_answered_from_without_asking(infra, tenant, embedder, tmp_path):
    tenant_id, user_id = tenant
    pdf = tmp_path / "mit.pdf"
    build_pdf(EVAL_DIR / "texts" / "mit.txt", pdf, "MIT License")
    async with running(*services(infra)):
        mit = await ingested(infra, tenant, pdf, "MIT License")
        _, answered = await turn(infra, tenant_id, user_id, QUESTION, action="inquire", tagged_doc_ids=[mit])
        assert answered["type"] == "response", answered  # no retrieval_low
        assert answered["retrieval_confidence"] == "low", answered
        said = answered["response"]
        assert said.startswith(unanswered_lead(1)) and "sell copies of the Software" in said, said
        assert whole_notice(1) in said, said
        cited = answered["citations"]
        assert cited and all(c["document_id"] == str(mit) and c["page"] == 1 for c in cited), cited


async def test_a_long_tagged_document_still_offers_to_search_further(infra, tenant, embedder, tmp_path):
    tenant_id, user_id = tenant
    source = tmp_path / "notices.txt"
    source.write_text("\n\n".join((EVAL_DIR / "texts" / f"{slug}.txt").read_text() for slug in BUNDLE))
    pdf = tmp_path / "notices.pdf"
    build_pdf(source, pdf, "Third-party licences")
    async with running(*services(infra)):
        bundle = await ingested(infra, tenant, pdf, "Third-party licences")
        async with tenant_tx(infra.db, tenant_id, user_id) as conn:
            (chunks,) = await docs.chunk_counts(conn, [str(bundle)])
        assert chunks > infra.settings.total_k, chunks  # more than one search ranks
        _, asked = await turn(infra, tenant_id, user_id, QUESTION, action="inquire", tagged_doc_ids=[bundle])
        assert asked["type"] == "interrupt" and asked["interrupt_type"] == "retrieval_low", asked
        assert [o["id"] for o in asked["options"]] == [SEARCH_ALL, "web_search", "continue"]
