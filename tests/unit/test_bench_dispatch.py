"""`policypal bench`: every benchmark module with a `main` is reachable by name, helpers are not."""

from __future__ import annotations

import pytest

from policypal import bench
from policypal.cli import main


def test_lists_the_benchmarks_and_not_their_helpers(capsys):
    names = bench.available()
    assert {"turn", "peer", "scale", "fanout", "ingest", "retrieval", "actions", "lean"} <= set(names)
    assert not {"harness", "inprocess", "peer_graph", "answer_metrics"} & set(names)
    assert main(["bench", "--list"]) == 0
    listed = capsys.readouterr().out
    assert "turn" in listed and "memory" in listed


def test_an_unknown_benchmark_is_a_clear_error(capsys):
    assert main(["bench", "no-such-bench"]) == 2
    assert "no benchmark named 'no-such-bench'" in capsys.readouterr().err


def test_arguments_reach_the_benchmark_parser(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "turn", "--help"])
    assert exit_.value.code == 0
    assert "policypal bench turn" in capsys.readouterr().out
