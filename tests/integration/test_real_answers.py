"""Issue #27 through the real system (bus, ingest, retrieval, inquire worker, Postgres, real PDFs).

- A tagged one-page standard whose text answers the question is answered from it: no
  `retrieval_low`, no heading echoed in front of the answer ("Exceptions Exceptions require…"), no
  sentence said twice and no sentence of another section.
- A statement's row is retrieved and quoted with its headers, cited to the page it is printed on,
  which is not the page its chunk starts on; the same on a real 10-Q (evals/real/sec-10q), among
  the whole filing's chunks.
- `retrieval_low` offers "Search all my documents" when documents are tagged and "Tag specific
  documents" when none are; searching all of them answers from another document.
- A question the documents do not answer is said to be unanswered, with the closest passage offered.
- A question about an amount, phrased by period and by where to look ("in the 10-Q report"), is
  answered with the statement's row and its figure, not with the filing's certification that
  repeats the words "quarterly report on Form 10-Q".
- A figure the real 10-Q does not print (free cash flow, a share of net sales, a quick ratio the
  question defines) is computed from its cited rows, with its working, for the period asked.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from bench.answer_metrics import MARKER
from services.actions.inquire import CLOSEST_LEAD, UNANSWERED_LEAD
from services.actions.palassist import SEARCH_ALL, TAG_DOCS
from shared.contracts import ResumeValue
from shared.runtime.service import Infra
from shared.text.sentences import split_sentences
from tests.integration.conftest import running
from tests.integration.helpers import ingest_complete, ingested, read_events, submit_file
from tests.integration.test_actions import resume, turn
from tests.integration.test_turn import services

pytestmark = pytest.mark.integration

STANDARD = [
    ("Access logs", "Access logs for customer-facing systems are retained for twelve months and reviewed weekly."),
    ("Backups", "Backups must be encrypted with AES-256 and stored in a separate region from production."),
    ("Exceptions", "Exceptions require written approval from the Data Protection Officer and the CISO."),
    ("Training", "All staff complete security awareness training when they join and every year after."),
]


def standard_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Information Security Standard", fontsize=18)
    y = 110
    for heading, body in STANDARD:
        # Set just above its paragraph, so MuPDF puts the heading in the paragraph's block.
        page.insert_text((72, y), heading, fontsize=10, fontname="hebo")
        page.insert_text((72, y + 12), body, fontsize=9)
        y += 40
    doc.save(path)
    return path


def travel_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(
        pymupdf.Rect(72, 72, 540, 400),
        "Travel Policy. Employees book flights through the corporate travel portal. "
        "Economy class is required for flights shorter than six hours. Hotel stays are reimbursed up to "
        "200 euros a night in capital cities.",
        fontsize=11,
    )
    doc.save(path)
    return path


def right(page: pymupdf.Page, x_right: float, y: float, text: str) -> None:
    page.insert_text((x_right - pymupdf.get_text_length(text, fontsize=9), y), text, fontsize=9)


def report_pdf(path: Path) -> Path:
    """Page 1 is prose that runs to the foot of the page; page 2 opens with the cash-flow statement."""
    doc = pymupdf.open()
    first = doc.new_page()
    first.insert_textbox(
        pymupdf.Rect(72, 600, 540, 800),
        "Liquidity. The company funds its operations from the cash its operations generate and holds enough "
        "cash for the next twelve months.",
        fontsize=10,
    )
    second = doc.new_page()
    second.insert_text((150, 60), "CONSOLIDATED STATEMENTS OF CASH FLOWS (In millions)", fontsize=10)
    second.insert_text((400, 90), "Year Ended", fontsize=9)
    right(second, 420, 102, "2018")
    right(second, 500, 102, "2017")
    rows = [
        ("Investing activities:", None),
        ("Purchases of marketable securities", ("(71,356)", "(159,486)")),
        ("Purchases of property, plant and equipment", ("(1,577)", "(1,213)")),
        ("Cash used in investing activities", ("(16,066)", "(46,446)")),
    ]
    y = 120
    for label, figures in rows:
        second.insert_text((40 if figures is None else 52, y), label, fontsize=9)
        if figures:
            right(second, 420, y, figures[0])
            right(second, 500, y, figures[1])
        y += 12
    doc.save(path)
    return path


CERTIFICATION = (
    "I have reviewed this quarterly report on Form 10-Q of Example Devices Inc. Based on my knowledge, this "
    "report does not contain any untrue statement of a material fact."
)
TOPICS = (
    "Supply chain. The company sources components from suppliers in several regions and keeps safety stock "
    "of critical parts to absorb delays in shipping and manufacturing.",
    "Employees. The company had about twelve thousand employees at the end of the quarter, most of them in "
    "engineering, retail stores and customer support.",
    "Legal proceedings. The company is subject to claims arising in the ordinary course of business and "
    "does not expect them to have a material adverse effect.",
)


def quarterly_pdf(path: Path) -> Path:
    """Page 1: an income statement with three- and nine-month columns; pages 2–6: prose, with the
    two officers' certifications on pages 4 and 6 (a form the filing says twice)."""
    doc = pymupdf.open()
    first = doc.new_page()
    first.insert_text((150, 60), "CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS (In millions)", fontsize=10)
    for x, period in ((330, "Three Months Ended"), (470, "Nine Months Ended")):
        first.insert_text((x, 84), period, fontsize=9)
    for x, date in ((330, "July 1, 2023"), (400, "June 25, 2022"), (470, "July 1, 2023"), (540, "June 25, 2022")):
        right(first, x + 50, 96, date)
    rows = [
        ("Total net sales", ("81,797", "82,959", "282,999", "304,182")),
        ("Total cost of sales", ("45,384", "47,074", "165,066", "171,495")),
        ("Gross margin", ("36,413", "35,885", "128,721", "132,687")),
        ("Research and development", ("7,442", "6,797", "22,608", "19,490")),
        ("Operating income", ("22,998", "23,076", "87,332", "94,543")),
    ]
    y = 116
    for label, figures in rows:
        first.insert_text((52, y), label, fontsize=9)
        for x, figure in zip((380, 450, 520, 590), figures, strict=True):
            right(first, x, y, figure)
        y += 12
    for text in (TOPICS[0], TOPICS[1], CERTIFICATION + " Signed by the Chief Executive Officer.", TOPICS[2]):
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(72, 72, 540, 760), (text + " ") * 6, fontsize=10)
    last = doc.new_page()
    last.insert_textbox(
        pymupdf.Rect(72, 72, 540, 760), CERTIFICATION + " Signed by the Chief Financial Officer.", fontsize=10
    )
    doc.save(path)
    return path


async def answered(infra, tenant_id, user_id, question, doc_ids) -> dict:
    _, event = await turn(infra, tenant_id, user_id, question, action="inquire", tagged_doc_ids=doc_ids)
    return event


async def test_a_tagged_one_page_standard_answers_from_its_text_without_retrieval_low(
    infra, tenant, embedder, tmp_path
):
    tenant_id, user_id = tenant
    async with running(*services(infra)):
        doc = await ingested(
            infra, tenant_id, user_id, standard_pdf(tmp_path / "standard.pdf"), doc_type="company_policy"
        )
        for question, fact in (
            ("Who approves exceptions?", "Data Protection Officer"),
            ("What encryption is required for backups?", "AES-256"),
            ("How long are access logs kept?", "twelve months"),
        ):
            event = await answered(infra, tenant_id, user_id, question, [doc.document_id])
            assert event["type"] == "response", event  # never the retrieval_low question
            assert fact in event["response"], event["response"]
            said = MARKER.sub("", event["response"])
            for heading, body in STANDARD:
                assert f"{heading} {heading}" not in said, said  # no heading echo
                if fact not in body:  # no sentence of another section: it does not bear on the question
                    assert body not in said, said
            sentences = split_sentences(said)
            assert len(sentences) == len(set(sentences)), said  # no repeated fragment
            assert event["citations"] and event["citations"][0]["page"] == 1


async def test_a_statement_row_is_quoted_with_its_headers_on_its_own_page(infra, tenant, embedder, tmp_path):
    tenant_id, user_id = tenant
    async with running(*services(infra)):
        doc = await ingested(infra, tenant_id, user_id, report_pdf(tmp_path / "report.pdf"), doc_type="knowledge_base")
        thread_id, event = await turn(
            infra,
            tenant_id,
            user_id,
            "What were purchases of property, plant and equipment?",
            action="inquire",
            tagged_doc_ids=[doc.document_id],
        )
        assert event["type"] == "response", event  # the tagged document holds the answer: no retrieval_low
        assert event["type"] == "response", event
        assert "(1,577)" in event["response"], event["response"]
        row = [c for c in event["citations"] if "Purchases of property, plant and equipment" in c["quote"]]
        assert row, event["citations"]
        assert "Year Ended 2018: (1,577)" in row[0]["quote"] and "Year Ended 2017: (1,213)" in row[0]["quote"]
        assert row[0]["page"] == 2 and row[0]["navigation_target"]["page"] == 2


async def test_retrieval_low_offers_what_fits_the_search(infra, tenant, embedder, tmp_path):
    tenant_id, user_id = tenant
    # Every match is "weak" under this pin, so the question is always asked.
    pinned = Infra(
        settings=infra.settings.model_copy(
            update={"confidence_high": 0.995, "confidence_medium": 0.99, "sentence_answers": 0.99}
        ),
        bus=infra.bus,
        db=infra.db,
    )
    async with running(*services(pinned)):
        standard = await ingested(
            pinned, tenant_id, user_id, standard_pdf(tmp_path / "s.pdf"), doc_type="company_policy"
        )
        await ingested(pinned, tenant_id, user_id, travel_pdf(tmp_path / "travel.pdf"), doc_type="company_policy")
        question = "Which class is required for short flights?"
        thread_id, asked = await turn(
            pinned, tenant_id, user_id, question, action="inquire", tagged_doc_ids=[standard.document_id]
        )
        assert asked["type"] == "interrupt" and asked["interrupt_type"] == "retrieval_low", asked
        assert [o["id"] for o in asked["options"]] == [SEARCH_ALL, "web_search", "continue"]
        widened = await resume(
            pinned, tenant_id, user_id, thread_id, ResumeValue(type="retrieval_choice", value=SEARCH_ALL)
        )
        assert widened["type"] == "response" and "Economy class" in widened["response"], widened
        _, untagged = await turn(pinned, tenant_id, user_id, question, action="inquire")
        assert untagged["type"] == "interrupt", (untagged["response"], untagged["citations"])
        assert [o["id"] for o in untagged["options"]] == [TAG_DOCS, "web_search", "continue"]


async def test_an_unanswerable_question_is_said_to_be_unanswered_with_the_closest_passage(
    infra, tenant, embedder, tmp_path
):
    tenant_id, user_id = tenant
    async with running(*services(infra)):
        doc = await ingested(
            infra, tenant_id, user_id, standard_pdf(tmp_path / "standard.pdf"), doc_type="company_policy"
        )
        thread_id, event = await turn(
            infra,
            tenant_id,
            user_id,
            "What is the dress code for the office?",
            action="inquire",
            tagged_doc_ids=[doc.document_id],
        )
        if event["type"] == "interrupt":
            event = await resume(
                infra, tenant_id, user_id, thread_id, ResumeValue(type="retrieval_choice", value="continue")
            )
        assert event["type"] == "response", event
        assert event["retrieval_confidence"] == "low"
        said = event["response"]
        # Said to be unanswered (mode C, or "continue anyway" after retrieval_low), never a bare quote.
        assert said.startswith(UNANSWERED_LEAD) or (said.startswith("I couldn't find") and CLOSEST_LEAD in said), said
        assert event["citations"], "the closest passage is offered, cited"


async def test_an_amount_asked_by_period_is_answered_with_the_row_and_its_figure(infra, tenant, embedder, tmp_path):
    tenant_id, user_id = tenant
    async with running(*services(infra)):
        doc = await ingested(infra, tenant_id, user_id, quarterly_pdf(tmp_path / "10-Q.pdf"), doc_type="knowledge_base")
        event = await answered(
            infra,
            tenant_id,
            user_id,
            "What was the gross margin for the three months ended July 1, 2023 in the quarterly 10-Q report?",
            [doc.document_id],
        )
        assert event["type"] == "response", event
        assert "36,413" in event["response"], event["response"]
        assert "I have reviewed" not in event["response"], event["response"]
        row = [c for c in event["citations"] if c["quote"].startswith("Gross margin")]
        assert row and row[0]["page"] == 1, event["citations"]
        assert "Three Months Ended July 1, 2023: 36,413" in row[0]["quote"], row[0]["quote"]


FILING = Path(__file__).resolve().parents[2] / "evals/real/sec-10q/docs/2022 Q3 AAPL.pdf"


async def test_a_real_filings_cash_flow_row_is_retrieved_and_quoted_with_its_headers(infra, tenant, embedder):
    """A real 10-Q (Apple, Q3 2022, 28 pages; evals/real/sec-10q): the cash-flow statement's row is
    found among the whole filing's chunks, quoted whole with its group, label and column headers, and
    cited to page 8, where the statement is printed."""
    tenant_id, user_id = tenant
    async with running(*services(infra)):
        cmd = await submit_file(infra, tenant_id, user_id, FILING, doc_type="knowledge_base")
        await read_events(infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_complete, timeout=600)

        async def ask(question: str) -> dict:
            return await answered(infra, tenant_id, user_id, question, [cmd.document_id])

        event = await ask("What were the payments for acquisition of property, plant and equipment?")
        assert event["type"] == "response", event
        assert "(7,419)" in event["response"], event["response"]
        label = "Payments for acquisition of property, plant and equipment"
        row = [c for c in event["citations"] if label in c["quote"]]
        assert row, event["citations"]
        quote = row[0]["quote"]
        assert quote.startswith(f"Investing activities: {label} — "), quote
        assert "Nine Months Ended June 25, 2022: (7,419)" in quote, quote
        assert "Nine Months Ended June 26, 2021: (7,862)" in quote, quote
        assert row[0]["page"] == 8 and row[0]["navigation_target"]["page"] == 8
        # A figure it does not print is computed from the rows quoted, for the period asked, with
        # its working, and those rows are cited where the statement prints them.
        event = await ask("What was Apple's free cash flow for the nine months ended June 25, 2022?")
        assert event["type"] == "response", event
        lead = event["response"].split("\n\n")[0]
        # The amount is in the statement's unit, which its note prints and the row keeps.
        assert lead.startswith("**Free cash flow: 90,605 million** (Nine Months Ended June 25, 2022)"), lead
        assert "in millions, Cash generated by operating activities 98,024 − " in lead, lead
        assert "7,419 = 90,605." in lead, lead
        quoted = " ".join(c["quote"] for c in event["citations"] if c["page"] == 8)
        assert "Cash generated by operating activities" in quoted and label in quoted, [
            (c["page"], c["quote"]) for c in event["citations"]
        ] + [event["response"]]
        assert "(in millions)" in quoted, quoted
        # Asked in another unit, the figure is restated in it; the working keeps the page's figures.
        event = await ask(
            "What were Apple's payments for acquisition of property, plant and equipment in the first nine "
            "months of fiscal 2022, in USD billions?"
        )
        assert event["type"] == "response", event
        lead = event["response"].split("\n\n")[0]
        assert lead.startswith(f"**{label}: 7.419 billion** (Nine Months Ended June 25, 2022)"), event["response"]
        # A share asked without an operator is the part over the whole, for the period asked.
        event = await ask(
            "What percentage of Apple's total net sales for the three months ended June 25, 2022 came from Services?"
        )
        lead = event["response"].split("\n\n")[0]
        assert lead.startswith(
            "**Services as a share of total net sales: 23.6%** (Three Months Ended June 25, 2022 (Q3 fiscal 2022))"
        ), event["response"]
        assert "Services 19,604 ÷ Total net sales 82,959" in lead, lead
        # A formula of three lines with parentheses, on the balance sheet's column of the date asked.
        event = await ask(
            "The quick ratio is defined as (total current assets - inventories) / total current liabilities. "
            "What was Apple's quick ratio as of June 25, 2022? Round to two decimal places."
        )
        lead = event["response"].split("\n\n")[0]
        assert lead.startswith("**Quick ratio: 0.82x** (June 25, 2022)"), event["response"]
        assert "(Total current assets 112,292 − Inventories 5,433) ÷ Total current liabilities 129,873" in lead, lead
        # A yes/no question about the same figure opens with its verdict, then the same working.
        event = await ask("Did Apple generate positive free cash flow in the nine months ended June 25, 2022?")
        assert event["type"] == "response", event
        lead = event["response"].split("\n\n")[0]
        assert lead.startswith(
            "**Yes.** Free cash flow was 90,605 million (Nine Months Ended June 25, 2022), above zero."
        ), lead
        assert "Cash generated by operating activities 98,024 − " in lead, lead
        # What no row decides, a sentence that says it in the period asked does (page 17's MD&A).
        event = await ask("Did Apple repurchase any of its own shares in the third quarter of fiscal 2022?")
        assert event["response"].startswith("**Yes.** The filing says so for Q3 2022 (quoted below)."), event
        stated = [c for c in event["citations"] if "repurchased $21.7 billion of its common stock" in c["quote"]]
        assert stated and stated[0]["page"] == 17, event["citations"]
