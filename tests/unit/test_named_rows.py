"""The table row an amount question names leads the answer (shared/llm/offline/rows.py), a long row is
quoted whole cells at a time (shared/text/quotes.py), and statements' names for line items are searched
(shared/text/search_query.py)."""

from __future__ import annotations

import asyncio

from shared.llm.offline.answers import inquire
from shared.llm.offline.compose import Scored
from shared.llm.offline.rows import rows_of
from shared.llm.schemas import AnswerInputs, Passage
from shared.text.periods import asked_span
from shared.text.quotes import QUOTE_LIMIT, quote_of
from shared.text.search_query import retrieval_query
from shared.text.sentences import Sentence
from shared.text.statements import statement_titled
from shared.text.tables import contents_line, printed_rows, render_row, row_parts

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


def ask(question: str, *pages: tuple[int, str], sentences: int = 1) -> str:
    """The offline answer to the question over passages (page, text), numbered in order."""
    given = [
        Passage(n=i + 1, document_id="d", document="10-Q", page=page, text=text) for i, (page, text) in enumerate(pages)
    ]
    return asyncio.run(inquire(AnswerInputs(query=question, passages=given, sentences=sentences)))


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


BLANK = Passage(n=1, document_id="d", document="10-Q", page=1, text="")


def test_a_contents_line_and_prose_are_no_rows():
    texts = [
        "Condensed Consolidated Statements of Cash Flows — 3.",
        NARRATIVE,
        "Net sales: Total net sales — 2023: 81,797 · 2022: 82,959.",
    ]
    scored = [Scored(i, 0.5, 0.5, frozenset()) for i in range(len(texts))]
    _, rows = rows_of([Sentence(0, t) for t in texts], scored, [BLANK], floor=0.0)
    assert [(r.label, r.structured) for r in rows] == [("Total net sales", True)]


# Apple's Q1 2023 cash flow statement as the page's text gives it when no table is recognised.
FINANCING = (
    "Payments for dividends and dividend equivalents (3,768) (3,732) Repurchases of common stock (19,475) "
    "(20,478) Repayments of term debt (1,401) — Cash used in financing activities (35,563) (28,159)"
)


DIVIDENDS = "Payments for dividends and dividend equivalents"


def test_rows_printed_in_a_statements_run_of_text_are_read_as_printed():
    assert printed_rows(FINANCING) == [
        (
            "Payments for dividends and dividend equivalents",
            "Payments for dividends and dividend equivalents (3,768) (3,732)",
        ),
        ("Repurchases of common stock", "Repurchases of common stock (19,475) (20,478)"),
        ("Repayments of term debt", "Repayments of term debt (1,401) —"),
        ("Cash used in financing activities", "Cash used in financing activities (35,563) (28,159)"),
    ]
    # Prose that cites figures is no run of rows.
    assert printed_rows("The Company repurchased $19.0 billion of its common stock during the quarter.") == []
    assert printed_rows(NARRATIVE) == []


def test_a_row_printed_in_a_run_of_text_answers_when_no_table_row_was_retrieved():
    question = "How much cash did Apple use to buy back its common stock in the quarter (USD millions)?"
    said = ask(question, (5, NARRATIVE), (8, FINANCING), sentences=2)
    # Quoted as the page prints it, so the citation's quote is found on page 8 word for word.
    assert said.startswith("Repurchases of common stock (19,475) (20,478) [2]"), said


def test_the_row_with_a_column_for_the_span_asked_leads():
    cash_flow = render_row("Operating activities", "Net income", [("Six Months Ended April 1, 2023", "54,158")])
    income = render_row(
        None,
        "Net income",
        [("Three Months Ended April 1, 2023", "24,160"), ("Six Months Ended April 1, 2023", "54,158")],
    )
    segment = render_row("Americas", "Operating income", [("Three Months Ended April 1, 2023", "13,117")])
    company = render_row(None, "Operating income", [("Three Months Ended April 1, 2023", "28,318")])

    def lead(question: str) -> str:
        return ask(question, (4, cash_flow), (5, income), (6, segment), (7, company)).split(" [")[0]

    assert lead("What net income did Apple report for the second quarter of fiscal 2023?") == income
    assert "24,160" in lead("What was net income for the quarter?")
    # A segment's row is not the company's: its group names what the question does not.
    assert "28,318" in lead("What was Apple's operating income in Q2?")
    assert asked_span("the first nine months, from the third quarter's report") == "Nine Months"
    assert asked_span("How much was capex in FY2022?") is None


def test_a_statement_named_as_the_source_names_no_line_item():
    # "Use the income statement": "income" says where to look, not which row ("Other operating
    # expense (income), net" is no answer to a question about net sales).
    other = render_row(None, "Other operating expense (income), net", [("Three Months Ended September 30, 2023", "48")])
    sales = render_row(None, "Total net sales", [("Three Months Ended September 30, 2023", "143,083")])
    question = "By what percentage did total net sales grow in Q3 2023? Use the income statement."
    said = ask(question, (4, other), (4, sales))
    assert "143,083" in said, said


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


def test_a_ratio_is_searched_on_the_statements_that_print_its_parts():
    # A filing may print no gross margin: its parts are the income statement's lines.
    asked = retrieval_query("What was Amazon's gross margin in the most recent 10-Q filing?")
    assert "cost of sales" in asked and "consolidated statements of operations" in asked
    assert "consolidated balance sheets" in retrieval_query("What is the current ratio?")
    turnover = retrieval_query("What is the fixed asset turnover ratio?")
    assert "consolidated statements of operations" in turnover and "consolidated balance sheets" in turnover
    # The ratio's own row is matched by the ratio's name alone.
    assert retrieval_query("What was the gross margin?", parts=False) == "What was the gross margin?"
    assert "consolidated" not in retrieval_query("What was Amazon's revenue in Q3 2023?")


def test_how_to_state_the_answer_is_not_searched():
    asked = retrieval_query("What was capex (in USD millions)? Round to two decimals.")
    assert "USD" not in asked and "millions" not in asked and "Round" not in asked
    assert "in millions of dollars" not in retrieval_query("What was the AP balance, in millions of dollars?")
    assert "repurchases of common stock" in retrieval_query("How much did Apple spend to buy back stock?")
    assert "consolidated statements of cash flows" in retrieval_query("Relying on the statement of cash flows, …")
    assert "balance sheet" not in retrieval_query("According to the balance sheet, what was AP?", statements=False)
    # Where to look is not what to look for: every exhibit of a 10-K names "Form 10-K".
    assert retrieval_query("What are PepsiCo's divisions as described in Item 1 of the 10-K?") == (
        "What are PepsiCo's divisions as described in Item 1?"
    )


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
        Sentence(
            0,
            "Note 6 – Share-Based Compensation 88 Note 7 – Pension, Retiree Medical and Savings Plans 92 "
            "Note 8 – Debt Obligations 98 Note 9 – Financial Instruments 100 Note 10 – Net Income 106",
        ),
        Sentence(1, "In February 2023 we issued $8.0 billion of senior notes maturing between 2026 and 2063."),
        Sentence(1, "Fair value hierarchy: Level 1 Level 2 Level 3 Total."),
        Sentence(
            2,
            "These consolidated financial statements should be read in conjunction with the audited consolidated "
            "financial statements and accompanying notes in Item 8 of Part II of our 2022 Annual Report.",
        ),
        Sentence(2, "Information relating to market risk is set forth below and in Item 2 of Part I."),
    ]
    similarities = np.asarray([0.7, 0.65, 0.6, 0.5, 0.3, 0.6, 0.6])
    scored = score_sentences("What debt did the company issue?", sentences, similarities)
    # A pointer, a contents line and contents run together do not answer, nor does a sentence that
    # only says where the information is or what to read it with; a header with three numbered
    # columns is not a contents run.
    assert [s.heading for s in scored] == [True, True, True, False, False, True, True]


def test_a_safe_harbour_notice_answers_only_a_question_about_forward_looking_statements():
    import numpy as np

    from shared.llm.offline.compose import score_sentences
    from shared.text.sentences import Sentence

    notice = Sentence(
        0,
        "This Quarterly Report on Form 10-Q includes forward-looking statements within the meaning of the "
        "Private Securities Litigation Reform Act of 1995.",
    )
    similarity = np.asarray([0.6])
    assert score_sentences("How do share repurchases relate to equity?", [notice], similarity)[0].heading
    assert not score_sentences("Does the 10-Q contain forward-looking statements?", [notice], similarity)[0].heading


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


def test_a_named_statements_row_leads_over_the_same_line_in_a_note():
    balance_sheet = "AMAZON.COM, INC.\nCONSOLIDATED BALANCE SHEETS\n\nCash and cash equivalents $ 53,888 $ 49,529"
    note = (
        "Cash and cash equivalents reported on our consolidated balance sheets are reconciled below.\n\n"
        "Cash and cash equivalents $ 53,888 $ 49,529"
    )
    question = "According to the balance sheet, how much cash and cash equivalents did Amazon hold?"
    said = ask(question, (12, note), (6, balance_sheet))
    # The note only mentions the balance sheet in a sentence; page 6 is titled by it.
    assert said.startswith("Cash and cash equivalents $ 53,888 $ 49,529 [2]"), said


def test_a_date_is_no_printed_row():
    assert printed_rows("December 31, 2022 June 30, 2023") == []
    assert printed_rows("June 30,") == []


def test_a_row_whose_first_figure_is_a_footnote_mark_is_not_offered():
    # MuPDF prints the superscript glued to the label ("securities1 $ 1,421"): read with a space, the
    # row would be quoted in words the page does not hold.
    assert printed_rows("Marketable equity securities 1 $ 1,421 $ 1,341 Other assets $ 2,050 $ 1,990") == [
        ("Other assets", "Other assets $ 2,050 $ 1,990")
    ]


def test_a_printed_row_is_quoted_apart_from_the_sentence_listed_before_it():
    # The row is read out of the passage's first line but listed after its sentences; joined to the
    # sentence listed before it, the quote would put the row after the sentence, not as printed.
    printed = "Repurchases of common stock (19,475) (20,478) Repayments of term debt (1,401) —"
    text = f"{printed}\n\nThe Company repurchased $19.0 billion of its common stock during the quarter."
    said = ask("How much did Apple spend on repurchases of common stock?", (8, text), sentences=2)
    assert "Repurchases of common stock (19,475) (20,478) [1]" in said, said
    assert "during the quarter. [1]" in said, said


def test_a_header_line_read_as_a_row_is_no_row():
    header = "The carrying values of our notes were as follows: (years) Interest Rate — 2022 · 2022."
    scored = [Scored(0, 0.5, 0.5, frozenset())]
    _, rows = rows_of([Sentence(0, header)], scored, [BLANK], floor=0.0)
    assert rows == []


def test_cash_paid_out_is_named_however_the_statement_words_it():
    balance_sheet = "CONSOLIDATED BALANCE SHEETS\n\nProperty, plant and equipment, net 45,680 43,715"
    cash_flows = (
        "CONSOLIDATED STATEMENTS OF CASH FLOWS\n\n"
        "Payments for acquisition of property, plant and equipment (9,447) (10,959) (10,708)"
    )
    question = "How much did Apple spend on purchases of property, plant and equipment in fiscal 2023?"
    said = ask(question, (34, balance_sheet), (36, cash_flows))
    # "Purchases of" and "payments for acquisition of" are the same outflow; the balance sheet's
    # net PP&E is a balance, not what was spent.
    assert said.startswith("Payments for acquisition of property, plant and equipment (9,447) (10,959) (10,708) [2]"), (
        said
    )


def test_a_statement_titled_on_the_second_page_of_a_passage_is_that_pages_statement():
    equity = (
        "CONSOLIDATED STATEMENTS OF SHAREHOLDERS' EQUITY\n\n"
        "Dividends and dividend equivalents declared (15,218) (14,996)\n\n"
    )
    cash_flows = (
        "CONSOLIDATED STATEMENTS OF CASH FLOWS\n\nPayments for dividends and dividend equivalents (15,234) (15,025)"
    )
    passage = Passage(
        n=1, document_id="d", document="10-K", page=35, text=equity + cash_flows, page_breaks=[len(equity)]
    )
    question = "Using the cash flow statement, how much did Apple pay out in dividends and dividend equivalents?"
    said = asyncio.run(inquire(AnswerInputs(query=question, passages=[passage], sentences=1)))
    # The passage starts on the equity statement's page; the cash flow statement is titled on the next.
    assert said.startswith("Payments for dividends and dividend equivalents (15,234) (15,025) [1]"), said


def test_a_page_that_titles_every_statement_is_an_index_not_a_statement():
    index = (
        "Index to Consolidated Financial Statements Page\nConsolidated Statements of Operations 29\n"
        "Consolidated Balance Sheets 31\nConsolidated Statements of Cash Flows 33"
    )
    assert statement_titled(index) is None
    titled = statement_titled("Apple Inc.\nCONSOLIDATED STATEMENTS OF CASH FLOWS\n(In millions)")
    assert titled is not None and "cash flows" in titled.words
    # A sentence that mentions a statement does not title its page.
    assert statement_titled("The auditor audited the consolidated statements of cash flows for each year.") is None


def test_a_sentence_listing_the_statements_does_not_follow_the_row():
    opinion = (
        "We have audited the accompanying consolidated balance sheets of Apple Inc. as of September 28, 2024, "
        "the related consolidated statements of operations and cash flows for each of the three years in the "
        "period ended September 28, 2024."
    )
    cash_flows = (
        "CONSOLIDATED STATEMENTS OF CASH FLOWS\n\nCash generated by operating activities 118,254 110,543 122,151"
    )
    question = "Relying on the cash flow statement, how much cash did Apple generate from operating activities in 2024?"
    said = ask(question, (51, opinion), (36, cash_flows), sentences=3)
    assert said.startswith("Cash generated by operating activities 118,254 110,543 122,151 [2]"), said
    assert "We have audited" not in said


def test_a_row_after_other_quotes_gives_up_its_group_then_is_left_out_never_cut_inside_a_cell():
    sentence = "Cash flow information is as follows, for each of the three years presented in this report. " * 2
    group = "Adjustments to reconcile net income to cash generated by operating activities"
    cells = [("Years ended September 28, 2024", "11,688"), ("Years ended September 30, 2023", "10,833")]
    row = render_row(group, "Share-based compensation expense", cells, "millions")
    quote = quote_of([sentence.strip(), row])
    assert len(quote) <= QUOTE_LIMIT and quote.endswith("…")
    assert quote.endswith(
        " … Share-based compensation expense — Years ended September 28, 2024: 11,688 (in millions) …"
    ), quote
    longer = quote_of([(sentence * 2)[:250], row])
    assert len(longer) <= QUOTE_LIMIT and "Years ended September …" not in longer and "Share-based" not in longer


def test_a_caption_that_starts_with_a_statements_title_or_a_phrase_about_it_titles_nothing():
    for caption in (
        "Consolidated Statements of Cash Flows Reconciliation",
        "Amounts recognized in the balance sheet",
        "Off-balance sheet arrangements",
        "balance sheet 648 93",
        "Consolidated Comprehensive Income Statement",
    ):
        assert statement_titled(caption) is None, caption
    # As filings title them, banks' word order and a continued page included.
    for title, words in (
        ("Consolidated Income Statement", "operations"),
        ("Consolidated Cash Flow Statement", "cash flows"),
        ("PepsiCo, Inc. and Subsidiaries\nConsolidated Statement of Cash Flows (continued)", "cash flows"),
        ("AMAZON.COM, INC.\nCONSOLIDATED BALANCE SHEETS", "balance"),
    ):
        titled = statement_titled(title)
        assert titled is not None and words in titled.words, title


def test_rows_on_a_page_the_search_found_titled_lead_though_the_title_was_not_retrieved():
    # Amazon's 10-K: the cash flow statement's title is in a chunk of page 60 that was not retrieved;
    # the search marks the chunks of that page it returns (services/retrieval/statement_pages.py).
    note = "Gross property and equipment 394,055 534,098"
    statement = "Purchases of property and equipment (52,729) (82,999) (131,819)"
    question = (
        "What is the FY2025 capital expenditure amount for Amazon, i.e. the gross purchases of property and "
        "equipment? Give a response by relying on the details shown in the cash flow statement."
    )
    passages = [
        Passage(n=1, document_id="d", document="10-K", page=87, text=note),
        Passage(n=2, document_id="d", document="10-K", page=60, text=statement, statement_pages=[60]),
    ]
    said = asyncio.run(inquire(AnswerInputs(query=question, passages=passages, sentences=1)))
    assert said.startswith(f"{statement} [2]"), said
    # Unmarked, the two rows name the question's words alike and the first passage's leads.
    unmarked = [passages[0], passages[1].model_copy(update={"statement_pages": []})]
    said = asyncio.run(inquire(AnswerInputs(query=question, passages=unmarked, sentences=1)))
    assert said.startswith(f"{note} [1]"), said


def test_a_caption_glued_to_a_tables_last_row_groups_the_rows_above_it():
    from shared.llm.offline.rows import table_groups

    sentences = [
        Sentence(0, "North America — Year Ended December 31, 2024: 24,967 · Year Ended December 31, 2025: 29,619."),
        Sentence(0, "AWS — Year Ended December 31, 2024: 39,834 · Year Ended December 31, 2025: 45,606."),
        Sentence(
            0,
            "Operating income by segment is as follows (in millions): Consolidated — Year Ended December 31, 2024: "
            "68,593 · Year Ended December 31, 2025: 79,975.",
        ),
        Sentence(0, "Cash paid for interest — Year Ended December 31, 2025: 2,300."),
    ]
    caption = "Operating income by segment is as follows (in millions)"
    # The last row has another width: another table.
    assert table_groups(sentences) == {0: caption, 1: caption}


def test_a_ratio_printed_as_a_row_of_its_own_leads_over_its_parts():
    rows = [
        ("Net cash provided by (used in) operating activities", ("115,877", "139,514")),
        ("Purchases of property and equipment, net of proceeds from sales and incentives", ("(77,658)", "(128,320)")),
        ("Free cash flow", ("38,219", "11,194")),
    ]
    periods = ("Year Ended December 31, 2024", "Year Ended December 31, 2025")
    table = "\n\n".join(render_row("", label, list(zip(periods, v, strict=True))) for label, v in rows)
    said = ask("What was AMZN's free cash flow for 2025 (in USD millions)?", (51, table))
    # The search still looks for the parts (a filing that prints no such row), the answer leads with the row.
    assert "net cash provided by operating activities" in retrieval_query("What was the free cash flow?")
    assert said.startswith("Free cash flow — Year Ended December 31, 2024: 38,219"), said


def test_a_label_and_its_figures_printed_apart_are_one_row():
    # A results release printed from a browser: each cell is a block of its own in the page's text.
    release = (
        "Net cash provided by/(used for) operating activities\n\n$ (10,205) $ (32,543) $ 9,961 $ (53,377)\n\n"
        "Less: Purchase of property and equipment\n\n(7,313) (28,209) (16,097) (54,106)\n\n"
        "Free cash flow\n\n$ (17,518) $ (60,752) $ (6,136) $ (107,483)\n\n"
        "Reconciliation of Non-GAAP Financial Measures (Unaudited)"
    )
    said = ask("What was the year-to-date free cash flow?", (15, release))
    assert said.startswith("Free cash flow $ (17,518) $ (60,752) $ (6,136) $ (107,483) [1]"), said


def test_a_second_row_that_says_a_word_of_the_question_the_first_does_not_joins_the_lead():
    table = "\n\n".join(
        render_row("Net sales", label, [("Three Months Ended March 31, 2023", value)])
        for label, value in (("Net service sales", "70,377"), ("Net product sales", "56,981"))
    )
    said = ask(
        "What did advertising services net sales come to in the first quarter of 2023?",
        (4, table),
        (21, "Advertising services (5) 7,877 9,509"),
        sentences=2,
    )
    assert "Advertising services (5) 7,877 9,509" in said and "Net product sales" not in said, said


def test_a_ratio_the_filing_does_not_print_is_led_by_the_rows_of_its_parts():
    years = ("2024", "2023")
    statement = "\n\n".join(
        render_row(None, label, list(zip(years, values, strict=True)))
        for label, values in (
            ("Total net sales", ("391,035", "383,285")),
            ("Cost of sales", ("210,352", "214,137")),
            ("Operating income", ("123,216", "114,301")),
            ("Net income", ("93,736", "96,995")),
        )
    )
    cash_flows = render_row("Operating activities", "Net income", list(zip(years, ("93,736", "96,995"), strict=True)))
    # Gross margin: cost of sales and net sales, though "sales" is in both labels.
    said = ask("What was the gross margin?", (32, statement), (36, cash_flows), sentences=2)
    assert "Cost of sales — " in said and "Total net sales — " in said, said
    # Operating margin: operating income and net sales; net income is no part of it.
    said = ask("Calculate the operating margin for FY2024.", (32, statement), (36, cash_flows), sentences=2)
    assert "Operating income — " in said and "Total net sales — " in said and "Net income" not in said, said


def test_a_figure_the_question_defines_is_led_by_the_rows_of_its_operands():
    years = ("2024", "2023")
    statement = "\n\n".join(
        render_row(None, label, list(zip(years, values, strict=True)))
        for label, values in (
            ("Total net sales", ("391,035", "383,285")),
            ("Operating income", ("17,411", "11,188")),
            ("Income before income taxes", ("15,806", "12,484")),
            ("Provision for income taxes", ("(2,706)", "(2,306)")),
            ("Payments for acquisition of property, plant and equipment", ("(9,447)", "(10,959)")),
            ("Property, plant and equipment, net", ("45,680", "43,715")),
        )
    )
    # The question names both operands: each leads with its own row. "Provision for income taxes"
    # holds the words of "income before income taxes", but is the other line.
    said = ask(
        "What was the tax rate, computed as provision for income taxes divided by income before income taxes?",
        (5, statement),
        sentences=2,
    )
    assert "Provision for income taxes — " in said and "Income before income taxes — " in said, said
    # "PP&E purchases" are the payments for PP&E, not the balance sheet's PP&E; the divisor is the total.
    said = ask(
        "What was capex intensity, i.e. PP&E purchases as a percentage of total net sales?", (5, statement), sentences=2
    )
    assert "Payments for acquisition of property, plant and equipment — " in said, said
    assert "Total net sales — " in said and "Property, plant and equipment, net" not in said, said


def test_a_question_asking_why_is_led_by_the_sentence_that_states_the_cause():
    page = (
        render_row("Gross margin percentage", "Products", [("2024", "37.2%"), ("2023", "36.5%")])
        + "\n\nProducts gross margin increased due to cost savings and a different mix."
    )
    said = ask("What drove the improvement in the Products gross margin percentage in 2024?", (27, page))
    assert said.startswith("Products gross margin increased due to cost savings"), said
    # Asked how much, the row leads as before.
    said = ask("What was the Products gross margin percentage in 2024?", (27, page))
    assert said.startswith("Gross margin percentage: Products — "), said


def test_a_question_asking_what_something_did_is_led_by_the_sentence_that_states_its_effect():
    # Apple's Q3 2023 10-Q: the derivatives note's row of foreign exchange contracts holds the
    # question's words; the quarter's highlights say what exchange rates did.
    page = (
        render_row(
            "Derivative assets",
            "Foreign exchange contracts",
            [("July 1, 2023", "4,317"), ("September 24, 2022", "7,136")],
        )
        + "\n\nWeakness in foreign currencies relative to the U.S. dollar had an unfavorable impact on the "
        "Company's total net sales, which decreased 1% or $1.2 billion during the third quarter of 2023."
    )
    for question in (
        "How did foreign exchange rates specifically affect Apple's financial performance?",
        "What was the impact of foreign exchange rates on Apple's results?",
        "What effects did currency fluctuations have on Apple's financial statements?",
    ):
        said = ask(question, (17, page))
        assert said.startswith("Weakness in foreign currencies relative to the U.S. dollar"), (question, said)
    # Asked how much, the row leads as before.
    said = ask("What were Apple's foreign exchange contracts among derivative assets at July 1, 2023?", (17, page))
    assert said.startswith("Derivative assets: Foreign exchange contracts — "), said


def test_a_statement_titled_after_a_company_name_in_lower_case_is_titled():
    assert statement_titled("lululemon athletica inc. CONSOLIDATED STATEMENTS OF OPERATIONS AND COMPREHENSIVE INCOME")
    assert statement_titled("lululemon athletica inc. CONSOLIDATED BALANCE SHEETS")
    assert statement_titled("recorded on our consolidated balance sheets") is None


def test_a_small_number_under_a_header_is_a_value_not_a_page():
    # A table of contents reads "Financial Statements — 3." or under a "Page" column; a reference's
    # table of values ("Value: 36") is no contents line, so its row can answer.
    assert contents_line("Financial Statements — 3.") and contents_line("Item 1. Business — Page: 4.")
    assert not contents_line("Remove the appended UUID completely — Value: 36.")
    assert not contents_line("Retail stores — December 31, 2023: 412.")


def test_a_contents_entry_cut_where_the_next_entry_opens_is_a_contents_line():
    # A 10-Q's contents read as sentences: the splitter ends one where "Item 3." opens the next entry.
    entry = "Management’s Discussion and Analysis of Financial Condition and Results of Operations 22 Item 3."
    assert contents_line(entry)
    assert contents_line("Risk Factors 15 Part II.")
    assert not contents_line("Revenue grew 22% in fiscal 2023 compared with fiscal 2022, as described in Item 7.")
    assert not contents_line("The Company had 150 employees in Item 2.")
