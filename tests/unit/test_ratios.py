"""Computed figures (shared/text/ratios.py): ratios by name, and the operands of a definition the
question gives, are the lines to search for and to lead the answer with."""

from __future__ import annotations

from shared.text.definitions import defined_parts
from shared.text.ratios import computation, named_ratios, ratio_statements
from shared.text.search_query import retrieval_query
from shared.text.statements import BALANCE_SHEET, INCOME_STATEMENT


def test_a_definition_in_the_question_gives_its_operands():
    assert defined_parts("What was the 2023 cost ratio, i.e. operating expenses as a percentage of net revenues?") == [
        ("operating expenses",),
        ("net revenues",),
    ]
    assert defined_parts("What was the tax rate in Q1, computed as income tax expense divided by pre-tax income?") == [
        ("income tax expense",),
        ("pre-tax income",),
    ]
    # The start of the first operand: after a possessive; the end of the last: before the period asked.
    assert defined_parts("What was Acme's R&D expense as a % of total revenue for fiscal 2022?") == [
        ("r&d expense",),
        ("total revenue",),
    ]


def test_a_formula_gives_its_lines_without_averages_periods_or_constants():
    question = (
        "What is the FY2020 days inventory? It is defined as: 365 * (average inventories between FY2019 and "
        "FY2020) / (FY2020 cost of sales). Round your answer to two decimal places."
    )
    assert defined_parts(question) == [("inventories",), ("cost of sales",)]
    # A list inside a line's label is not cut: "property, plant and equipment" is one line.
    assert defined_parts("Compute it as (cash from operations minus purchases of property, plant and equipment).") == [
        ("cash from operations",),
        ("purchases of property, plant and equipment",),
    ]


def test_words_that_only_look_like_operators_define_nothing():
    for text in (
        "Who approves exceptions and/or waivers?",
        "What was the Y/Y growth in the quarter?",
        "By what percentage did revenue grow from 2023 to 2024?",
        "What happened over the year, less than expected?",
        "What is the FY2017 - FY2019 change in revenue?",
    ):
        assert defined_parts(text) == [], text


def test_standard_ratios_are_searched_on_the_statements_that_print_their_lines():
    assert ratio_statements("What was the days payable outstanding in FY2022?") == [INCOME_STATEMENT, BALANCE_SHEET]
    assert ratio_statements("What was the effective tax rate?") == [INCOME_STATEMENT]
    assert "interest expense" in retrieval_query("What was the interest coverage ratio in 2023?")
    # DPO is also a data protection officer: the abbreviation alone names no ratio.
    assert named_ratios("Who is the DPO and how is the DPO contacted?") == []
    # A line with other labels in other filings keeps them as alternatives of one part.
    assert named_ratios("What was the operating margin?")[0].parts == (
        ("operating income", "income from operations", "operating profit"),
        ("net sales", "revenues"),
    )


def test_a_reason_is_searched_in_the_narrative_not_in_the_ratios_lines():
    assert "operating income" in retrieval_query("What was the operating margin in 2024?")
    for question in (
        "Why did the operating margin fall in 2024?",
        "What did it attribute the operating margin's rise to?",
    ):
        asked = retrieval_query(question)
        assert "income from operations" not in asked and "consolidated statements of operations" not in asked, asked


def test_less_subtracts_and_a_unit_in_parentheses_ends_an_operand():
    question = (
        "What was free cash flow, defined as net cash provided by operating activities less purchases of "
        "property and equipment (USD millions)?"
    )
    assert defined_parts(question) == [
        ("net cash provided by operating activities",),
        ("purchases of property and equipment",),
    ]
    assert defined_parts("Was revenue less than expected?") == []


def test_a_definition_computed_another_way_than_the_ratio_it_names_keeps_its_own_lines():
    gross = computation(
        "What was the gross margin percentage? Define it as the GROSS MARGIN line divided by total revenue "
        "in the income statement, and round your answer to one decimal place."
    )
    assert gross is not None and gross.parts == (("gross margin",), ("total revenue",)), gross
    # The same computation as the ratio's: the question's words first, the ratio's labels beside them.
    fcf = computation("What was free cash flow (operating cash flow minus capital expenditures) in FY2024?")
    assert fcf is not None and fcf.name == "free cash flow" and fcf.parts[0][0] == "operating cash flow"
    # "a minus sign" is no operator.
    assert computation("By what percentage did revenue change? Use a minus sign for a decline.") is None


def test_textbook_ratios_of_retention_turnover_and_operating_cash_flow_have_their_formulas():
    retention = computation("What is the FY2021 retention ratio (using cash dividends paid and net income)?")
    assert retention and retention.parts[0] == ("net income",) and retention.formula.less == (1,)
    assert retention.formula.over == (0,) and retention.formula.unit == "times"
    cash = computation("What is the FY2017 operating cash flow ratio?")
    assert cash and cash.parts[1] == ("total current liabilities",) and cash.formula.unit == "times"
    turnover = computation("What was the FY2024 receivables turnover?")
    assert turnover and turnover.parts[1] == ("accounts receivable",)
