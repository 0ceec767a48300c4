"""A figure to compute is searched for line by line as well (services/actions/line_search.py)."""

from __future__ import annotations

from services.actions.line_search import CHANGE_K, LINE_K, TABLE_K, line_queries, line_searches
from shared.text.changes import asks_change, changed_line_query


def test_each_line_of_a_figure_of_several_lines_is_searched_for_on_its_own():
    assert line_queries("Return on assets is defined as net income / average total assets. What was it in 2024?") == [
        "net income",
        "total assets",
    ]
    assert line_queries("What was Apple's gross margin in FY2024?") == [
        "net sales revenues",
        "cost of sales cost of revenues cost of goods sold",
    ]
    # Nothing to compute, or one line only: the question's own search is enough.
    assert line_queries("Who audits Apple?") == []


def test_lines_are_searched_among_all_chunks_and_among_rows_and_a_comparison_among_rows():
    lines = line_searches("What was Apple's gross margin in FY2024?")
    assert [(s.rows, s.k) for s in lines] == [(False, LINE_K), (True, LINE_K)] * 2
    compared = line_searches("Which product category had the largest decline in net sales in fiscal 2024?")
    assert len(compared) == 1 and compared[0].rows and compared[0].tables and compared[0].k == TABLE_K
    assert "net sales" in compared[0].query
    assert line_searches("Who audits Apple?") == []


def test_the_line_a_change_is_asked_of_is_searched_for_among_rows_by_its_own_words():
    question = (
        "By what percentage did Amazon's purchases of property and equipment grow in Q3 2024 compared with Q3 2023?"
    )
    (search,) = line_searches(question)
    assert search.rows and search.k == CHANGE_K
    # The periods and the change's words are in every row of a table of quarters ("Y/Y % Q3 2023").
    for word in ("2024", "2023", "Q3", "quarter", "grow", "percentage", "compared"):
        assert word not in search.query, search.query
    assert "purchases of property and equipment" in search.query
    assert changed_line_query("What is the FY2019 - FY2020 change in operating income?").endswith(
        "in operating income?"
    )


def test_a_change_is_asked_between_two_periods_or_as_a_rate():
    assert asks_change("What is the FY2019 - FY2020 change in operating income?")
    assert asks_change("What was the YoY growth in royalties?")
    assert not asks_change("Did operating income change in 2024?")
    assert line_searches("What was operating income in 2024?") == []


def test_a_lines_search_names_the_span_asked_so_the_statements_column_comes_before_a_reconciliations():
    # Amazon's 10-Q repeats both lines in three free-cash-flow reconciliations of trailing twelve months.
    question = (
        "What was Amazon's free cash flow for the three months ended March 31, 2023, defined as net cash provided "
        "by operating activities less purchases of property and equipment?"
    )
    assert all(query.endswith("Three Months Ended") for query in line_queries(question))
    assert not any("Ended" in query for query in line_queries("What was Apple's gross margin in FY2024?"))
