"""Status lines: every node has a friendly one (the widget's customers never read a node name)."""

from __future__ import annotations

import re

from shared.graph.topology import ALL_NODES, STATUS_TEXTS, status_text


def test_every_node_has_a_status_line_and_none_is_an_internal_name() -> None:
    assert set(ALL_NODES) <= set(STATUS_TEXTS)
    for node in ALL_NODES:
        assert not re.search(r"[a-z]+_[a-z]+", status_text(node)), node
    assert status_text("some_future_node") == "Working on it..."


def test_the_support_nodes_speak_the_prds_statuses() -> None:
    assert status_text("check_cache") == "Checking what we already know..."
    assert status_text("contextualize") == "Reformulating your question..."
