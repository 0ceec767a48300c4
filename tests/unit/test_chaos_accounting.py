"""How the chaos run turns progress marks into seconds without service, and refuses a small cluster."""

from __future__ import annotations

from bench.chaos_load import outage_s
from policypal.cli import main


def test_outage_is_the_longest_gap_around_the_kill() -> None:
    marks = [0.0, 0.5, 1.0, 4.5, 5.0, 5.2, 9.0]
    assert outage_s(marks, since=1.2, window_s=3.0) == 3.5  # 1.0 → 4.5 spans the kill at 1.2
    assert outage_s(marks, since=4.6, window_s=3.0) == 3.8  # 5.2 → 9.0 runs past the window's end


def test_no_progress_at_all_after_the_kill_counts_the_whole_window() -> None:
    assert outage_s([0.0, 1.0], since=2.0, window_s=7.0) == 8.0  # from the last event before the kill


def test_up_refuses_a_cluster_without_a_surviving_quorum(capsys) -> None:
    assert main(["up", "--nats-cluster", "2"]) == 2
    assert "at least 3" in capsys.readouterr().err
