"""A figure to compute is searched for line by line as well (services/actions/line_search.py)."""

from __future__ import annotations

from services.actions.line_search import LINE_K, TABLE_K, line_queries, line_searches


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
