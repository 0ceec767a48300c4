"""Every task of MODEL_MAP on the offline engine, through the LLM service as nodes call it."""

from __future__ import annotations

import logging
import uuid

import pytest

from services.actions.citations import CitationBook, passages_of
from shared.config import Settings
from shared.contracts import ChunkHit
from shared.llm import MODEL_MAP, LLMService, build_prompt, build_provider
from shared.llm.offline.tasks import HANDLERS
from shared.llm.schemas import (
    AnswerInputs,
    AuditInputs,
    AuditOutput,
    AuditTarget,
    ContextualizeInputs,
    ConversationSummaryInputs,
    DocResolutionInputs,
    DocResolutionOutput,
    GradeInputs,
    GradeOutput,
    IntentInputs,
    IntentOutput,
    Passage,
    RewriteInputs,
    RewriteOutput,
    TextOutput,
    TitleInputs,
)

RETENTION = "Retention Policy (v1)"
REGULATION = "Storage Regulation (2024)"
PASSAGES = [
    Passage(
        n=1,
        document_id="p",
        document=RETENTION,
        page=1,
        text="Customer records must be deleted within 30 days after the contract ends. "
        "Marketing data may be kept for analytics purposes when customers consent.",
    ),
    Passage(
        n=2,
        document_id="r",
        document=REGULATION,
        page=4,
        text="Personal data shall be erased within 14 days once it is no longer necessary. "
        "Controllers must document every erasure request they receive.",
    ),
]


@pytest.fixture(scope="module")
def llm() -> LLMService:
    settings = Settings(llm_provider="offline")
    return LLMService(settings, build_provider(settings))


def test_every_task_is_routed_and_implemented_offline():
    assert set(MODEL_MAP) == set(HANDLERS)
    assert {t for t, p in MODEL_MAP.items() if p.tier == "large"} == {"audit", "compare_holistic"}


async def test_intent_multi_action_and_history(llm):
    both = await llm.structured(
        "intent", IntentOutput, build_prompt("intent", IntentInputs(message="Summarize and audit the policy"))
    )
    assert both.actions == ["summarize", "audit"] and both.confidence == "low"
    follow = IntentInputs(message="now the regulation", history=["Compare the policy with the regulation"])
    assert (await llm.structured("intent", IntentOutput, build_prompt("intent", follow))).actions == ["compare"]


async def test_doc_resolution_from_registry_and_fuzzy_names(llm):
    inputs = DocResolutionInputs(
        message="Does the retention polcy allow analytics?",
        library={"p": RETENTION, "r": REGULATION},
    )
    out = await llm.structured("doc_resolution", DocResolutionOutput, build_prompt("doc_resolution", inputs))
    assert out.ids == ["p"]
    back = DocResolutionInputs(message="Summarize it", registry={RETENTION: "p"}, library={"p": RETENTION})
    out = await llm.structured("doc_resolution", DocResolutionOutput, build_prompt("doc_resolution", back))
    assert out.ids == ["p"] and out.source == "inferred"


async def test_short_text_tasks(llm):
    rewrite = RewriteInputs(query="Could you please tell me the retention period for invoices? Thanks")
    assert (await llm.structured("query_rewrite", RewriteOutput, build_prompt("query_rewrite", rewrite))).query == (
        "the retention period for invoices?"
    )
    follow = ContextualizeInputs(
        question="How do I export it to PDF?", history=["customer: How do I create a DOCX file?", "assistant: …"]
    )
    standalone = await llm.structured("contextualize", TextOutput, build_prompt("contextualize", follow))
    assert standalone.text == "How do I export a DOCX file to PDF?"
    alone = ContextualizeInputs(
        question="What are your opening hours?", history=["customer: How do I create a DOCX file?"]
    )
    assert (
        await llm.structured("contextualize", TextOutput, build_prompt("contextualize", alone))
    ).text == alone.question
    title = await llm.structured(
        "title", TextOutput, build_prompt("title", TitleInputs(message="What does @Retention say about backups?"))
    )
    assert title.text == "What does Retention say about backups?"
    summary = ConversationSummaryInputs(
        previous_summary="", messages=["user: Summarize the retention policy please.", "assistant: It says …"]
    )
    text = (
        await llm.structured("conversation_summary", TextOutput, build_prompt("conversation_summary", summary))
    ).text
    assert text == "The user asked: Summarize the retention policy please."


async def test_grade_confidence_rewards_similarity_and_citations(llm):
    async def grade(answer: str, sims: list[float]) -> float:
        inputs = GradeInputs(question="q", answer=answer, similarities=sims)
        return (await llm.structured("grade_confidence", GradeOutput, build_prompt("grade_confidence", inputs))).score

    cited = "Records are deleted within thirty days of the end. [1]"
    assert await grade(cited, [0.7, 0.6]) == 1.0
    assert await grade(cited, [0.2]) < 0.5
    assert await grade("Records are deleted within thirty days of the end.", [0.7]) == 0.5
    assert await grade("", [0.9]) == 0.0
    # A marker after a run of sentences from one passage cites the run; a sentence after it is uncited.
    assert await grade("Which methods do you accept? We accept Visa and PayPal. [1]", [0.7]) == 1.0
    assert await grade("We accept Visa and PayPal. [1] Invoices are on request.", [0.7]) == 0.75
    # A question about something the knowledge base never mentions is not supported, however close.
    unmentioned = GradeInputs(question="q", answer=cited, similarities=[0.7], unmentioned=["fingerprint"])
    graded = await llm.structured("grade_confidence", GradeOutput, build_prompt("grade_confidence", unmentioned))
    assert graded.score == 0.0
    # Nor is a quantity asked that the passages about it do not state.
    unstated = GradeInputs(question="q", answer=cited, similarities=[0.7], unstated=True)
    graded = await llm.structured("grade_confidence", GradeOutput, build_prompt("grade_confidence", unstated))
    assert graded.score == 0.0


async def test_answers_quote_the_passages_and_cite_them(llm, embedder):
    inquire = AnswerInputs(
        query="Within how many days must customer records be deleted?", passages=PASSAGES, sentences=1
    )
    text = await llm.generate("inquire", build_prompt("inquire", inquire))
    assert text == "Customer records must be deleted within 30 days after the contract ends. [1]"
    summary = await llm.generate("summarize", build_prompt("summarize", AnswerInputs(query="", passages=PASSAGES)))
    assert f"**{RETENTION}**" in summary and f"**{REGULATION}**" in summary and "[2]" in summary
    focused = AnswerInputs(query="compare erasure deadlines", passages=PASSAGES, focus="erasure deadlines", sentences=1)
    deltas = [d async for d in llm.stream("compare_focused", build_prompt("compare_focused", focused))]
    assert "".join(deltas).startswith("How the documents address “erasure deadlines”:")
    holistic = await llm.generate(
        "compare_holistic", build_prompt("compare_holistic", AnswerInputs(query="", passages=PASSAGES))
    )
    sections = ["**1. Overview**", "**2. Common themes**", "**3. Key differences**", "**4. Unique aspects**"]
    assert all(section in holistic for section in [*sections, "**5. Implications**"])
    assert f"- **{RETENTION}**: " in holistic and "[1]" in holistic and "[2]" in holistic


async def test_the_offline_engine_writes_no_model_call_log_lines(llm, embedder, caplog):
    """The per-call line says where a turn's time went on a model; the offline engine is none."""
    caplog.set_level(logging.INFO)
    await llm.structured("intent", IntentOutput, build_prompt("intent", IntentInputs(message="Summarize it")))
    await llm.generate("inquire", build_prompt("inquire", AnswerInputs(query="deleted?", passages=PASSAGES)))
    assert [
        d async for d in llm.stream("summarize", build_prompt("summarize", AnswerInputs(query="", passages=PASSAGES)))
    ]
    assert not [r for r in caplog.records if r.getMessage().startswith("model call")]


async def test_audit_finds_a_longer_deadline_and_a_weaker_obligation(llm, embedder):
    inputs = AuditInputs(
        themes=["Customer records must be deleted within 14 days.", "Marketing data must be deleted on request."],
        targets=[AuditTarget(document_id="p", document=RETENTION, evidence=[PASSAGES[:1], PASSAGES[:1]])],
        match_floor=0.35,
    )
    out = await llm.structured("audit", AuditOutput, build_prompt("audit", inputs))
    deadline = out.findings[0]
    assert deadline.severity == "Critical" and deadline.passage == 1
    assert deadline.target_quote.startswith("Customer records must be deleted within 30 days")
    assert len(out.similarities) == 2


def chunk(n: int, text: str) -> ChunkHit:
    return ChunkHit(
        chunk_id=uuid.uuid4(),
        document_id=uuid.uuid4(),
        title=f"Doc {n}",
        version="v1",
        doc_type="company_policy",
        page=n,
        ordinal=n,
        text=text,
    )


def test_citations_are_renumbered_in_reading_order_even_when_a_marker_is_split():
    chunks = [
        chunk(1, "Alpha rules apply to everyone here."),
        chunk(2, "Beta rules apply on weekends only."),
        chunk(3, "Gamma."),
    ]
    book = CitationBook(chunks)
    shown = "".join(
        book.feed(d) for d in ["Beta rules apply on weekends. [", "2] Alpha rules apply. [1", "] Again [2]. Bogus [9]."]
    )
    shown += book.flush()
    assert shown == "Beta rules apply on weekends. [1] Alpha rules apply. [2] Again [1]. Bogus ."
    citations = book.citations()
    assert [(c["n"], c["page"]) for c in citations] == [(1, 2), (2, 1)]
    assert citations[0]["quote"] == "Beta rules apply on weekends only."
    assert passages_of(chunks, first=5)[0].n == 5


async def test_focused_compare_tabulates_each_document_and_the_figures_that_differ(llm, embedder):
    guideline = [
        Passage(
            n=1,
            document_id="a",
            document="Guideline (2023)",
            page=2,
            text="Institutions must maintain a total capital ratio of at least 8% of risk-weighted assets.",
        ),
        Passage(
            n=2,
            document_id="b",
            document="Guideline (2025)",
            page=2,
            text="Institutions must maintain a total capital ratio of at least 10% of risk-weighted assets.",
        ),
    ]
    inputs = AnswerInputs(query="compare the capital ratio", passages=guideline, focus="capital ratio", sentences=1)
    text = await llm.generate("compare_focused", build_prompt("compare_focused", inputs))
    assert "| Document | What it says |" in text
    assert "| Guideline (2023) | Institutions must maintain a total capital ratio of at least 8%" in text
    assert "**Figures that differ:** Guideline (2023): 8%; Guideline (2025): 10%" in text


async def test_audit_of_a_text_against_rules_flags_a_prohibited_claim(llm, embedder):
    rules = Passage(
        n=3,
        document_id="g",
        document="Guideline (2025)",
        page=4,
        text="Promotional material for investment products must be fair, clear and not misleading. It must state "
        "the principal risks prominently, must not promise guaranteed returns, and must include the warning.",
    )
    inputs = AuditInputs(
        themes=["Our new fund offers guaranteed returns of 9% per year, every year."],
        themes_are="statements",
        targets=[AuditTarget(document_id="g", document="Guideline (2025)", evidence=[[rules]])],
        match_floor=0.2,
    )
    out = await llm.structured("audit", AuditOutput, build_prompt("audit", inputs))
    [finding] = out.findings
    assert finding.severity == "Critical" and finding.issue == "states what the requirement prohibits"
    assert finding.source_quote.startswith("Our new fund offers guaranteed returns")
    assert "must not promise guaranteed returns" in finding.target_quote and finding.passage == 3


@pytest.mark.parametrize(
    "earlier, question, standalone",
    [
        ("How do I create a DOCX file?", "How do I export it to PDF?", "How do I export a DOCX file to PDF?"),
        ("Can I upload a spreadsheet?", "How big can it be?", "How big can a spreadsheet be?"),
        ("How do I reset my password?", "How long does that take?", "How long does my password take?"),
        ("How do I cancel my subscription?", "Can I undo this later?", "Can I undo my subscription later?"),
    ],
)
async def test_contextualize_resolves_the_pronoun_from_the_earlier_question(llm, earlier, question, standalone):
    inputs = ContextualizeInputs(question=question, history=[f"user: {earlier}", "assistant: …"])
    assert (await llm.structured("contextualize", TextOutput, build_prompt("contextualize", inputs))).text == standalone
