"""Every action reports retrieval confidence honestly and asks `retrieval_low` on weak evidence, and
"📄 Tag specific documents" resumes the same question on the documents picked (issue #30), through the
real bus, ingest, retrieval, the action workers and Postgres.

- An untagged question with weak matches is asked; the answer that tags a document is answered
  from it; a client that answers the bare option (no menu to open) gets the instruction instead.
- A summary whose sampled passages hold almost no statement (a register of form codes) is asked
  before it is written: "continue" gives the disclaimer and a low confidence; tagging another
  document summarizes that one instead. A readable document is summarized at once, confidence high.
- Compare asks too, focused (weak topic evidence) and holistic (an unreadable sample), without
  the web (compare never searches it); tagging documents compares them.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from services.actions import worker as action_worker
from services.actions.palassist import DISCLAIMER, QUESTION, TAG_DOCS, TAG_FEEDBACK, TAGGED_QUESTION
from services.ingest import worker as ingest_worker
from services.resolver import worker as resolver_worker
from services.retrieval import worker as retrieval_worker
from shared.contracts import ResumeValue
from shared.runtime.service import Infra
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.helpers import ingested
from tests.integration.test_actions import resume, turn

pytestmark = pytest.mark.integration

HANDBOOK = """# Finance Records Handbook

Invoices are archived in the finance system for ten years after they are paid.

Paper invoices are scanned within five working days, and the paper originals are shredded after the yearly audit.

Expense receipts are kept with the expense claim they support for the same ten years.
"""
# A register of form codes: lines that name things and state nothing, so a summary has nothing to say.
REGISTER = "# Form Register\n\n" + "\n\n".join(f"Form {n:03d}-{chr(65 + n % 26)} Annex {n % 7}" for n in range(300))


def services(infra: Infra) -> list:
    return [
        lambda s: ingest_worker.serve(infra, s),
        lambda s: retrieval_worker.serve(infra, s),
        lambda s: resolver_worker.serve(infra, s),
        *[lambda s, a=a: action_worker.serve_action(infra, s, a) for a in ("inquire", "summarize", "compare")],
    ]


def pinned(infra: Infra) -> Infra:
    """Every match is "weak" under this pin, so the question is always asked."""
    strict = {"confidence_high": 0.995, "confidence_medium": 0.99, "sentence_answers": 0.99}
    return Infra(settings=infra.settings.model_copy(update=strict), bus=infra.bus, db=infra.db)


def tag(*doc_ids) -> ResumeValue:
    return ResumeValue(type="retrieval_choice", value={"choice": TAG_DOCS, "document_ids": [str(d) for d in doc_ids]})


def cited(event: dict) -> set[str]:
    return {c["document_id"] for c in event["citations"]}


async def library(infra: Infra, tenant: tuple, tmp_path: Path) -> dict[str, str]:
    tenant_id, user_id = tenant
    (tmp_path / "handbook.md").write_text(HANDBOOK)
    (tmp_path / "register.md").write_text(REGISTER)
    docs = {
        "aml": await ingested(infra, tenant_id, user_id, EXAMPLES / "aml-policy.pdf", title="AML Policy"),
        "handbook": await ingested(infra, tenant_id, user_id, tmp_path / "handbook.md", title="Finance Handbook"),
        "register": await ingested(infra, tenant_id, user_id, tmp_path / "register.md", title="Form Register"),
    }
    return {name: str(cmd.document_id) for name, cmd in docs.items()}


async def test_tag_specific_documents_answers_the_same_question_from_them(infra, tenant, embedder, tmp_path):
    tenant_id, user_id = tenant
    strict = pinned(infra)
    async with running(*services(strict)):
        docs = await library(strict, tenant, tmp_path)
        question = "How long are invoices archived?"
        thread_id, asked = await turn(strict, tenant_id, user_id, question, action="inquire")
        assert asked["type"] == "interrupt" and asked["interrupt_type"] == "retrieval_low", asked
        assert asked["message"] == QUESTION and asked["options"][0]["id"] == TAG_DOCS
        # An id that is none of the user's documents: said so, and the question stays open.
        unknown = await resume(strict, tenant_id, user_id, thread_id, tag(uuid.uuid4()))
        assert unknown["type"] == "error" and unknown["code"] == "invalid_answer", unknown
        answered = await resume(strict, tenant_id, user_id, thread_id, tag(docs["handbook"]))
        assert answered["type"] == "response", answered
        assert cited(answered) == {docs["handbook"]} and "ten years" in answered["response"], answered

        thread_id, asked = await turn(strict, tenant_id, user_id, question, action="inquire")
        assert asked["type"] == "interrupt", asked
        bare = await resume(strict, tenant_id, user_id, thread_id, ResumeValue(type="retrieval_choice", value=TAG_DOCS))
        assert bare["type"] == "response" and bare["response"] == TAG_FEEDBACK, bare


async def test_summarize_asks_when_its_sample_holds_no_statement(infra, tenant, embedder, tmp_path):
    tenant_id, user_id = tenant
    async with running(*services(infra)):
        docs = await library(infra, tenant, tmp_path)
        _, readable = await turn(
            infra, tenant_id, user_id, "Summarize", action="summarize", tagged_doc_ids=[docs["aml"]]
        )
        assert readable["type"] == "response" and readable["retrieval_confidence"] == "high", readable

        outcomes = {}
        for choice in ("continue", "tag"):
            thread_id, asked = await turn(
                infra, tenant_id, user_id, "Summarize", action="summarize", tagged_doc_ids=[docs["register"]]
            )
            assert asked["type"] == "interrupt" and asked["interrupt_type"] == "retrieval_low", asked
            assert asked["message"] == TAGGED_QUESTION
            assert [o["id"] for o in asked["options"]] == [TAG_DOCS, "web_search", "continue"]
            value = tag(docs["handbook"]) if choice == "tag" else ResumeValue(type="retrieval_choice", value=choice)
            outcomes[choice] = await resume(infra, tenant_id, user_id, thread_id, value)
        assert all(o["type"] == "response" for o in outcomes.values()), outcomes
        assert outcomes["continue"]["retrieval_confidence"] == "low" and DISCLAIMER in outcomes["continue"]["response"]
        assert cited(outcomes["tag"]) == {docs["handbook"]} and outcomes["tag"]["retrieval_confidence"] == "high"
        assert "Invoices are archived" in outcomes["tag"]["response"], outcomes["tag"]


async def test_compare_asks_without_the_web_and_compares_the_documents_tagged(infra, tenant, embedder, tmp_path):
    tenant_id, user_id = tenant
    strict = pinned(infra)
    async with running(*services(strict)):
        docs = await library(strict, tenant, tmp_path)
        focused = "Compare how long records are kept"
        thread_id, asked = await turn(
            strict, tenant_id, user_id, focused, action="compare", tagged_doc_ids=[docs["aml"], docs["register"]]
        )
        assert asked["type"] == "interrupt" and asked["interrupt_type"] == "retrieval_low", asked
        assert [o["id"] for o in asked["options"]] == [TAG_DOCS, "continue"]
        went_on = await resume(
            strict, tenant_id, user_id, thread_id, ResumeValue(type="retrieval_choice", value="continue")
        )
        assert went_on["type"] == "response" and went_on["retrieval_confidence"] == "low", went_on
        assert DISCLAIMER in went_on["response"]

    async with running(*services(infra)):
        thread_id, asked = await turn(
            infra, tenant_id, user_id, "Compare", action="compare", tagged_doc_ids=[docs["handbook"], docs["register"]]
        )
        assert asked["type"] == "interrupt" and asked["interrupt_type"] == "retrieval_low", asked  # holistic
        compared = await resume(infra, tenant_id, user_id, thread_id, tag(docs["handbook"], docs["aml"]))
        assert compared["type"] == "response", compared
        assert cited(compared) == {docs["handbook"], docs["aml"]}, compared
        assert compared["retrieval_confidence"] == "high", compared
