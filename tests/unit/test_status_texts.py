"""Status lines: every node has a friendly one (the widget's customers never read a node name)."""

from __future__ import annotations

import re

from shared.graph.topology import all_nodes, status_text, status_texts


def test_every_node_has_a_status_line_and_none_is_an_internal_name() -> None:
    assert set(all_nodes()) <= set(status_texts())
    for node in all_nodes():
        assert not re.search(r"[a-z]+_[a-z]+", status_text(node)), node
    assert status_text("some_future_node") == "Working on it..."


def test_the_support_nodes_speak_the_prds_statuses() -> None:
    assert status_text("check_cache") == "Checking what we already know..."
    assert status_text("contextualize") == "Reformulating your question..."
