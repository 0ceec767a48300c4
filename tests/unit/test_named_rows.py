"""The table row an amount question names leads the answer (shared/llm/offline/rows.py), a long row is
quoted whole cells at a time (shared/text/quotes.py), and statements' names for line items are searched
(shared/text/search_query.py)."""

from __future__ import annotations

import asyncio

from shared.llm.offline.answers import inquire
from shared.llm.offline.rows import label_terms
from shared.llm.schemas import AnswerInputs, Passage
from shared.text.quotes import QUOTE_LIMIT, quote_of
from shared.text.search_query import retrieval_query
from shared.text.tables import render_row, row_parts

PERIODS = ("Three Months Ended July 1, 2023", "Three Months Ended June 25, 2022")
# Apple's Q3 2023 10-Q as ingest stores it (services/ingest/tables.py): the MD&A's narrative, the
# net sales by category, the income statement's total and the gross margin by category.
NARRATIVE = (
    "iPhone net sales decreased during the third quarter of 2023 compared to the same quarter in 2022 due "
    "primarily to lower net sales from certain iPhone models."
)
ROWS = [
    ("Net sales by category", "iPhone", ("39,669", "40,665")),
    ("Net sales by category", "Services", ("21,213", "19,604")),
    ("Net sales", "Total net sales", ("81,797", "82,959")),
    ("Gross margin", "iPhone", ("14,120", "15,102")),
]


def passages() -> list[Passage]:
    table = "\n\n".join(render_row(g, label, list(zip(PERIODS, v, strict=True))) for g, label, v in ROWS)
    return [
        Passage(n=1, document_id="d", document="Q3 2023", page=19, text=NARRATIVE),
        Passage(n=2, document_id="d", document="Q3 2023", page=10, text=table),
    ]


def answer(question: str) -> str:
    return asyncio.run(inquire(AnswerInputs(query=question, passages=passages(), sentences=2)))


def test_an_amount_question_is_led_by_the_row_that_names_its_line_item():
    said = answer("What was the total revenue generated from iPhone sales in the latest quarter?")
    lead = said.split(" [")[0]
    # "revenue" is the statement's "net sales": the iPhone row of net sales, not the gross margin's
    # iPhone row, not the total, and not the narrative that explains the change.
    assert lead.startswith("Net sales by category: iPhone — "), said
    assert "39,669" in lead


def test_a_question_that_asks_no_amount_is_answered_by_the_narrative():
    said = answer("Why did iPhone sales decline?")
    assert said.startswith(NARRATIVE), said


def test_a_contents_line_and_prose_name_no_line_item():
    assert label_terms("Condensed Consolidated Statements of Cash Flows — 3.") is None
    assert label_terms(NARRATIVE) is None
    assert label_terms("Net sales: Total net sales — 2023: 81,797 · 2022: 82,959.") == {"sales"}


def test_a_long_row_is_quoted_whole_cells_at_a_time():
    cells = [(f"Twelve Months Ended September 30, {2000 + i}", f"{i},{i:03d}") for i in range(12)]
    row = render_row("Cash provided by (used in)", "Operating activities", cells)
    quote = quote_of(["Cash flow information is as follows.", row])
    assert len(quote) <= QUOTE_LIMIT and quote.endswith("…")
    piece = quote.split(" … ")[1].removesuffix(" …")
    parts = row_parts(piece)
    assert parts and parts[0] == "Operating activities" and parts[1:] == [v for _, v in cells[: len(parts) - 1]]


def test_line_items_are_searched_in_the_statements_words():
    assert "net sales" in retrieval_query("What was Amazon's revenue in Q3 2023?")
    assert "purchases of property, plant and equipment" in retrieval_query("What was the FY2018 capital expenditure?")
    assert "net cash provided by operating activities" in retrieval_query("What was the operating cash flow?")
    assert "net sales" not in retrieval_query("Who approves exceptions to the policy?")
    # Filings say "revenues" as often as "net sales", and "trade receivables" for accounts receivable.
    assert "revenues" in retrieval_query("What were net sales in Q3?")
    assert "trade receivables" in retrieval_query("What was the year end net AR?")


def test_a_statement_named_as_people_name_it_is_searched_by_its_title():
    assert "consolidated statements of cash flows" in retrieval_query(
        "What is the FY2018 capital expenditure? Give a response by relying on the cash flow statement."
    )
    assert "consolidated balance sheets" in retrieval_query("What were total assets on the balance sheet?")


def test_pointers_and_contents_lines_do_not_answer():
    import numpy as np

    from shared.llm.offline.compose import score_sentences
    from shared.text.sentences import Sentence

    sentences = [
        Sentence(0, "See Item 1 of Part I, “Financial Statements — Note 5 — Debt” for additional information."),
        Sentence(0, "Notes to Consolidated Financial Statements — 7."),
        Sentence(1, "In February 2023 we issued $8.0 billion of senior notes maturing between 2026 and 2063."),
    ]
    scored = score_sentences("What debt did the company issue?", sentences, np.asarray([0.7, 0.65, 0.5]))
    assert [s.heading for s in scored] == [True, True, False]


def test_a_persona_and_a_way_of_answering_are_not_searched_but_the_statement_they_name_is():
    query = retrieval_query(
        "Assume that you are a public equities analyst. Answer the following question by primarily using "
        "information that is shown in the balance sheet: what is the year end FY2018 net PPNE for 3M?"
    )
    assert "analyst" not in query and "information" not in query
    assert "property, plant and equipment" in query and "consolidated balance sheets" in query
    assert "fiscal year 2018" in query


def test_a_ratio_is_searched_by_its_parts():
    query = retrieval_query("Does AMD have a healthy liquidity profile based on its quick ratio for FY22?")
    assert "total current liabilities" in query and "fiscal year 2022" in query


def test_a_question_naming_two_line_items_gets_both_rows():
    said = answer("What percentage of total revenue did Services contribute in the quarter?")
    lead = said.split(" [")[0]
    assert "Net sales by category: Services — " in lead and "Net sales: Total net sales — " in lead, said
    assert "21,213" in lead and "81,797" in lead
