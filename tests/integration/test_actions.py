"""Summarize, compare and audit through the bus, and PalAssist interrupts resumed over `pp.cmd.resume`."""

from __future__ import annotations

import uuid

import pytest

from services.actions import worker as action_worker
from services.ingest import worker as ingest_worker
from services.resolver import worker as resolver_worker
from services.retrieval import worker as retrieval_worker
from shared.bus.publish import publish
from shared.contracts import ResumeCommand, ResumeValue
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.helpers import ingest_finished, read_events, submit_file, turn_finished
from tests.integration.test_turn import start_turn

pytestmark = pytest.mark.integration


@pytest.fixture
async def workers(infra):
    services = [
        lambda s: ingest_worker.serve(infra, s),
        lambda s: retrieval_worker.serve(infra, s),
        lambda s: resolver_worker.serve(infra, s),
        *[lambda s, a=a: action_worker.serve_action(infra, s, a) for a in ("summarize", "compare", "audit")],
    ]
    async with running(*services):
        yield


@pytest.fixture
async def corpus(infra, tenant, workers, embedder):
    tenant_id, user_id = tenant
    policy = await submit_file(
        infra,
        tenant_id,
        user_id,
        EXAMPLES / "data-retention-policy.pdf",
        title="Retention Policy",
        doc_type="company_policy",
    )
    regulation = await submit_file(
        infra, tenant_id, user_id, EXAMPLES / "storage-limitation-regulation.pdf", title="Regulation"
    )
    for cmd in (policy, regulation):
        await read_events(infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_finished)
    return tenant_id, user_id, policy.document_id, regulation.document_id


async def turn(infra, tenant_id, user_id, message, thread_id=None, **fields) -> tuple[uuid.UUID, dict]:
    thread_id = thread_id or uuid.uuid4()
    cmd = await start_turn(infra, tenant_id, user_id, thread_id, message, **fields)
    events = await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(cmd.run_id))
    return thread_id, events[-1]


async def resume(infra, tenant_id, user_id, thread_id, value: ResumeValue) -> dict:
    cmd = ResumeCommand(tenant_id=tenant_id, user_id=user_id, thread_id=thread_id, resume_value=value)
    await publish(infra.bus, infra.bus.subjects.cmd_resume, cmd)
    events = await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(cmd.run_id))
    return events[-1]


async def test_summarize_compare_and_audit(infra, corpus):
    tenant_id, user_id, policy, regulation = corpus
    _, summary = await turn(infra, tenant_id, user_id, "Summarize it", action="summarize", tagged_doc_ids=[policy])
    assert summary["type"] == "response" and summary["action"] == "summarize", summary
    assert summary["citations"] and {c["document_id"] for c in summary["citations"]} == {str(policy)}
    assert "[1]" in summary["response"]

    _, comparison = await turn(
        infra, tenant_id, user_id, "Compare breach notification", action="compare", tagged_doc_ids=[policy, regulation]
    )
    assert comparison["type"] == "response"
    assert "Retention Policy (v1)" in comparison["response"] and "Regulation (v1)" in comparison["response"]
    assert {c["document_id"] for c in comparison["citations"]} == {str(policy), str(regulation)}
    assert "72 hours" in comparison["response"] and "seventy-two hours" in comparison["response"]

    _, audit = await turn(
        infra,
        tenant_id,
        user_id,
        "Audit the policy against this: Personal data breaches must be notified to the supervisory authority "
        "within 24 hours. Job applicant data must be deleted within six months.",
        action="audit",
        tagged_doc_ids=[policy],
    )
    report = audit["findings"]
    assert audit["type"] == "response" and report["overall_status"] == "Major Violations"
    severities = {f["theme"][:20]: f["severity"] for f in report["findings"]}
    assert severities == {"Personal data breach": "Critical", "Job applicant data m": "Critical"}
    assert all(f["target_doc_id"] == str(policy) and f["target_quote"] for f in report["findings"])
    assert "**Audit result: Major Violations**" in audit["response"]


async def test_palassist_questions_are_resumed_and_cancelled(infra, corpus):
    tenant_id, user_id, policy, regulation = corpus
    thread_id, question = await turn(
        infra, tenant_id, user_id, "Audit this policy", action="audit", tagged_doc_ids=[policy]
    )
    assert question["type"] == "interrupt" and question["interrupt_type"] == "text_input"
    answer = await resume(
        infra,
        tenant_id,
        user_id,
        thread_id,
        ResumeValue(type="text_input", value="CCTV footage must be deleted after 30 days."),
    )
    assert answer["type"] == "response" and answer["findings"]["overall_status"] == "Compliant"

    thread_id, question = await turn(
        infra, tenant_id, user_id, "Compare these", action="compare", tagged_doc_ids=[policy]
    )
    assert question["type"] == "interrupt" and question["interrupt_type"] == "doc_choice"
    cancelled = await resume(infra, tenant_id, user_id, thread_id, ResumeValue(type="cancel"))
    assert cancelled["type"] == "response" and "cancelled" in cancelled["response"]

    nothing = await resume(infra, tenant_id, user_id, thread_id, ResumeValue(type="cancel"))
    assert nothing["type"] == "error" and nothing["code"] == "no_pending_interrupt"


async def test_documents_found_by_name_and_chosen_when_ambiguous(infra, corpus):
    tenant_id, user_id, policy, regulation = corpus
    _, summary = await turn(infra, tenant_id, user_id, "Summarize the retention policy")
    assert summary["type"] == "response" and summary["action"] == "summarize", summary
    assert {c["document_id"] for c in summary["citations"]} == {str(policy)}
    assert summary["inference_confidence"] == "high"  # the title's one distinctive word is in the message

    # The same bytes as the corpus's regulation, kept on purpose (the duplicate check has its own tests).
    twins = [
        await submit_file(
            infra, tenant_id, user_id, EXAMPLES / "storage-limitation-regulation.pdf", title=title, keep_duplicate=True
        )
        for title in ("Northwind Retention Schedule", "Northwind Travel Rules")
    ]
    for twin in twins:
        await read_events(infra, infra.bus.subjects.evt_ingest(twin.document_id), until=ingest_finished)
    thread_id, question = await turn(infra, tenant_id, user_id, "Summarize the northwind document")
    assert question["type"] == "interrupt" and question["interrupt_type"] == "doc_choice"
    twin_ids = [str(t.document_id) for t in twins]
    assert [o["id"] for o in question["options"]] == [*twin_ids, "all"]
    answer = await resume(infra, tenant_id, user_id, thread_id, ResumeValue(type="doc_choice", value="all"))
    assert answer["type"] == "response"
    assert {c["document_id"] for c in answer["citations"]} == set(twin_ids)


TWELVE_REQUIREMENTS = (
    "Personal data breaches must be notified to the supervisory authority within 24 hours. "
    "Job applicant data must be deleted within six months. "
    "Customer account records must be kept for six years. "
    "Backups must be encrypted. "
    "Access to personal data must be logged. "
    "CCTV footage must be deleted after 30 days. "
    "Employees must complete data protection training every year. "
    "Personal data must not be transferred outside the company without approval. "
    "Each department must appoint a data steward. "
    "Retention schedules must be reviewed annually. "
    "Deletion requests must be answered within one month. "
    "Paper records must be shredded when no longer needed."
)


async def test_audit_checks_every_requirement_it_is_given_and_says_how_many(infra, corpus):
    """Twelve pasted requirements: all twelve are checked (a cap of ten once dropped two silently)."""
    tenant_id, user_id, policy, _ = corpus
    _, audit = await turn(
        infra,
        tenant_id,
        user_id,
        f"Audit the policy against this: {TWELVE_REQUIREMENTS}",
        action="audit",
        tagged_doc_ids=[policy],
    )
    report = audit["findings"]
    assert audit["type"] == "response", audit
    assert len(report["themes_analyzed"]) == 12 and report["themes_not_checked"] == []
    assert report["summary"].startswith("Checked 12 requirement(s) against 1 document(s)")
    assert "Paper records must be shredded" in report["themes_analyzed"][-1]
