"""A figure to compute is searched for line by line as well (services/actions/line_search.py)."""

from __future__ import annotations

from services.actions.line_search import line_queries


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
