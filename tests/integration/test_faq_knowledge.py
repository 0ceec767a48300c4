"""A help-centre FAQ asked without tagging it, through the real system (bus, ingest, retrieval,
inquire worker, Postgres): each question and its answer are one chunk (services/ingest/faq.py), so
a customer's wording finds its topic by meaning over the whole library.

Packed four topics to a chunk, "What payment methods do you accept?" fell under the similarity
floor and got "I couldn't find anything relevant" followed by the very sentence that answers it.
Asked in the FAQ's own words, the answer is what follows the FAQ's question
(shared/llm/offline/compose.py, `answered_in_turn`).
"""

from __future__ import annotations

import pytest

from examples.eval.make_eval_pdfs import build_pdf
from services.actions.inquire import CLOSEST_LEAD
from shared.db.pool import tenant_tx
from tests.integration.conftest import running
from tests.integration.helpers import ingest_complete, read_events, submit_file
from tests.integration.test_actions import turn
from tests.integration.test_turn import services

pytestmark = pytest.mark.integration

FAQ = """How do I reset my password?

Open the sign-in page and choose Forgot password. We email you a link that is valid for 30 minutes.

Can I change the email address on my account?

Yes. Go to Settings, then Account, and enter the new address. We send a confirmation to both addresses.

How do I close my account?

Write to support@example.com from the account's address. We close it within five business days and \
delete your data after 90 days.

Which payment methods do you accept?

We accept Visa, Mastercard and PayPal. Invoices are available for annual plans.
"""


async def test_an_untagged_question_finds_its_faq_topic(infra, tenant, embedder, tmp_path):
    tenant_id, user_id = tenant
    source = tmp_path / "faq.txt"
    source.write_text(FAQ)
    pdf = tmp_path / "faq.pdf"
    build_pdf(source, pdf, "Help centre FAQ")
    async with running(*services(infra)):
        cmd = await submit_file(infra, tenant_id, user_id, pdf, title="Help centre FAQ", doc_type="knowledge_base")
        await read_events(infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_complete, timeout=300)
        async with tenant_tx(infra.db, tenant_id, user_id) as conn:
            texts = [
                r["text"] for r in await (await conn.execute("SELECT text FROM chunks ORDER BY ordinal")).fetchall()
            ]
        assert [t.split("\n\n")[-2] for t in texts] == [
            "How do I reset my password?",
            "Can I change the email address on my account?",
            "How do I close my account?",
            "Which payment methods do you accept?",
        ], texts

        _, answered = await turn(infra, tenant_id, user_id, "What payment methods do you accept?", action="inquire")
        assert answered["type"] == "response", answered
        said = answered["response"]
        assert "Visa, Mastercard and PayPal" in said and CLOSEST_LEAD not in said, said
        assert answered["retrieval_confidence"] in ("medium", "high"), answered
        assert {c["document_id"] for c in answered["citations"]} == {str(cmd.document_id)}

        # Asked in the FAQ's own words, the answer is the sentence under the question, which says how.
        _, how = await turn(infra, tenant_id, user_id, "How do I close my account?", action="inquire")
        assert how["response"].startswith("Write to support@example.com"), how
