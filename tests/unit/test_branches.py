"""Which messages each checkpoint of a branched thread shows (shared/graph/branches.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from shared.db.checkpoint_tree import CheckpointNode
from shared.graph.branches import CheckpointTree

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(second: int) -> datetime:
    return T0 + timedelta(seconds=second)


def node(cid: str, parent: str | None, second: int, source: str, run: str | None) -> CheckpointNode:
    # Ids sort by time, as LangGraph's do.
    return CheckpointNode(cid, parent, at(second), source, run)


def row(name: str, second: int, run: str | None) -> dict:
    return {"id": name, "created_at": at(second), "metadata": {"run_id": run} if run else {}}


# Turn A (0-4), turn B (5-9), then B regenerated as B2 (10-14) from B's input checkpoint "05".
NODES = [
    node("00", None, 1, "input", "A"),
    node("01", "00", 2, "loop", "A"),
    node("02", "01", 3, "loop", "A"),
    node("05", "02", 6, "input", "B"),
    node("06", "05", 7, "loop", "B"),
    node("07", "06", 8, "loop", "B"),
    node("10", "05", 11, "input", "B2"),
    node("11", "10", 12, "loop", "B2"),
    node("12", "11", 13, "loop", "B2"),
]
ROWS = [
    row("qA", 0, "A"),
    row("aA", 2.5, "A"),
    row("qB", 5, "B"),
    row("aB", 7.5, "B"),
    row("askB", 8.5, "B"),  # a PalAssist question, written after its checkpoint
    row("qB2", 10, "B2"),
    row("aB2", 12.5, "B2"),
]


def shown(tree: CheckpointTree, cid: str | None = None) -> list[str]:
    return [r["id"] for r in tree.visible(ROWS, cid)]


def test_each_branch_shows_its_own_runs_and_an_input_checkpoint_not_yet_its_message():
    tree = CheckpointTree(NODES)
    assert tree.head == "12" and shown(tree) == ["qA", "aA", "qB2", "aB2"]
    assert shown(tree, "07") == ["qA", "aA", "qB", "aB", "askB"]  # a leaf shows what was written after it
    assert shown(tree, "05") == ["qA", "aA"]  # the fork point: before either version of B
    assert shown(tree, "00") == []
    assert shown(tree, "01") == ["qA", "aA"]  # written before the thread went on from "01"
    assert shown(tree, "10") == ["qA", "aA"]


def test_a_turn_start_is_the_nearest_input_checkpoint_of_a_run_that_wrote_a_user_message():
    tree = CheckpointTree(NODES)
    assert tree.turn_start("07", {"A", "B", "B2"}).id == "05"
    assert tree.turn_start("11", {"A", "B", "B2"}).id == "10"
    assert tree.turn_start("02", {"B"}) is None


def test_a_thread_whose_checkpoints_name_no_run_is_read_by_time_alone():
    legacy = CheckpointTree([n._replace(run_id=None) for n in NODES[:6]])
    assert shown(legacy, "02") == ["qA", "aA"] and shown(legacy) == [r["id"] for r in ROWS]
    assert CheckpointTree([]).visible(ROWS) == ROWS


def test_history_keeps_the_turn_level_checkpoints_and_parents_skip_the_rest():
    tree = CheckpointTree(NODES)
    kept = tree.milestones()
    # Inside turn A only "01" (its message first shown) and "02" (its end, where B starts) are kept.
    assert kept == {"00", "01", "02", "05", "06", "07", "10", "11", "12"}
    between = CheckpointTree([*NODES, node("13", "12", 14, "loop", "B2"), node("14", "13", 15, "loop", "B2")])
    kept = between.milestones()
    assert "12" not in kept and "14" in kept and between.kept_parent("14", kept) == "11"
    resumed = CheckpointTree([*NODES, node("13", "12", 14, "loop", "R"), node("14", "13", 15, "loop", "R")])
    assert "12" in resumed.milestones()  # a question waited there: a resume run went on from it


def test_a_question_answered_again_on_another_branch_shows_only_that_branchs_answer():
    # Turn Q asks at "21"; run R1 answers it ("22", "23": its answer is written under Q's run id, as a
    # resume goes on with the turn's); run R2 answers the same question again from "21" ("30", "31").
    nodes = [
        node("20", None, 1, "input", "Q"),
        node("21", "20", 2, "loop", "Q"),
        node("22", "21", 4, "loop", "R1"),
        node("23", "22", 6, "loop", "R1"),
        node("30", "21", 8, "loop", "R2"),
        node("31", "30", 10, "loop", "R2"),
    ]
    rows = [
        row("q", 0, "Q"),
        row("ask", 2.5, "Q"),  # the question, written after Q's last checkpoint, before anything went on
        row("note", 3, "R1"),  # R1's own, before its first checkpoint
        row("a1", 5, "Q"),  # R1's answer (under the turn's run id), after R1's first checkpoint
        row("a2", 9, "R2"),  # R2's answer: a branch's answer carries the branch's run
    ]
    tree = CheckpointTree(nodes)

    def seen(cid: str) -> list[str]:
        return [r["id"] for r in tree.visible(rows, cid)]

    assert seen("23") == ["q", "ask", "note", "a1"]
    assert seen("31") == ["q", "ask", "a2"]  # not the first branch's answer, nor R1's rows
    assert seen("21") == ["q", "ask"]  # the question's checkpoint: before either answer
