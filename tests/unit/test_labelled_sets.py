"""The labelled intent and doc-resolution sets (evals/*.jsonl): well-formed rows, and the offline
engine's accuracy on them (bench/labelled.py prints the details and the failing cases)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_labelled", ROOT / "bench" / "labelled.py")
labelled = importlib.util.module_from_spec(_spec)
sys.modules["bench_labelled"] = labelled
_spec.loader.exec_module(labelled)

# Floors slightly under what the offline engine achieves (all cases pass as of this set).
INTENT_FLOOR = 0.97
DOC_FLOOR = 0.97
MIN_CASES = 60
INTENT_CASES = labelled.load(labelled.INTENT_CASES)
DOC_CASES = labelled.load(labelled.DOC_CASES)
EXAMPLE_FLOWS = ("explicit only", "implicit only", "hybrid high", "hybrid medium", "implicit low")


def _ids_unique(cases):
    ids = [c["id"] for c in cases]
    return len(ids) == len(set(ids))


def test_intent_cases_are_well_formed():
    assert len(INTENT_CASES) >= MIN_CASES and _ids_unique(INTENT_CASES)
    for case in INTENT_CASES:
        assert set(case) <= {
            "id",
            "category",
            "message",
            "history",
            "expected_actions",
            "expected_web",
            "source",
            "split",
        }
        assert case["message"].strip() and case["category"] and case["source"], case["id"]
        assert case["expected_actions"] and set(case["expected_actions"]) <= set(labelled.ACTIONS), case["id"]
        assert isinstance(case["expected_web"], bool), case["id"]
        assert all(isinstance(h, str) and h.strip() for h in case.get("history", [])), case["id"]


def test_doc_cases_are_well_formed():
    assert len(DOC_CASES) >= MIN_CASES and _ids_unique(DOC_CASES)
    for case in DOC_CASES:
        titles = [doc["title"] for doc in case["library"]]
        assert len(titles) == len(set(titles)), case["id"]
        assert all(doc["doc_type"] in labelled.DOC_TYPES for doc in case["library"]), case["id"]
        assert set(case["registry"]) <= set(titles) and len(case["registry"]) == len(set(case["registry"]))
        assert case["action"] in labelled.ACTIONS, case["id"]
        mentions = labelled.parse_mentions(case["message"])
        assert set(mentions.docs) <= set(titles), case["id"]
        expected = case["expected"]
        assert expected["outcome"] in labelled.OUTCOMES, case["id"]
        assert set(expected["docs"]) <= set(titles) and set(expected.get("candidates", [])) <= set(titles)
        assert (expected["outcome"] == "choice") == (len(expected.get("candidates", [])) > 1), case["id"]
        if expected["outcome"] == "none":
            assert not expected["docs"], case["id"]


def test_the_sets_cover_the_seed_examples():
    sources = " ".join(c["source"] for c in [*INTENT_CASES, *DOC_CASES])
    for flow in EXAMPLE_FLOWS:
        assert f"Example Flows: {flow}" in sources, flow
    assert "Smart Context Resolution table" in sources and "graph-fix-plan" in sources
    doc_categories = {c["category"] for c in DOC_CASES}
    assert {
        "explicit_only",
        "registry_verbatim",
        "fuzzy",
        "typo",
        "pronoun_singular",
        "pronoun_plural",
    } <= doc_categories
    assert {"doc_type", "hybrid", "no_reference", "ambiguous", "unknown_name"} <= doc_categories
    intent_categories = {c["category"] for c in INTENT_CASES}
    assert {"summarize", "compare", "audit", "inquire", "summarize_about", "multi_action"} <= intent_categories
    assert {"temporal_web", "ambiguous", "follow_up", "explicit_action"} <= intent_categories


@pytest.fixture(scope="module")
def results():
    return labelled.evaluate(labelled.OfflineEngine())


def test_offline_intent_accuracy(results):
    summary = results["intent"]
    failing = [(f["id"], f["message"], f["got"]) for f in summary["failures"]]
    assert summary["accuracy"] >= INTENT_FLOOR, failing


def test_offline_doc_resolution_accuracy(results):
    summary = results["doc_resolution"]
    failing = [(f["id"], f["message"], f["got"]) for f in summary["failures"]]
    assert summary["accuracy"] >= DOC_FLOOR, failing


def test_mentions_stand_for_tiptap_nodes():
    parsed = labelled.parse_mentions("@[Audit] @[Our Policy] against @[Web] the regulation")
    assert parsed.action == "audit" and parsed.web and parsed.docs == ["Our Policy"]
    assert parsed.text == "against the regulation" and not parsed.pure
    assert labelled.parse_mentions("@[Summarize] @[Doc1 (1)]").pure
