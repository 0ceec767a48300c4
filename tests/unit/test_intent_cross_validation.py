"""The intent benchmark's cross-validation (bench/intent.py) classifies with a model fitted without
the phrasing it scores: `classify_intent(learned=...)` must use that model, not the shipped one."""

from __future__ import annotations

from bench.intent import cross_validated
from shared.llm.offline import intent_model
from shared.llm.offline.intent import classify_intent


def test_a_model_fitted_elsewhere_decides_where_no_action_word_matched():
    pairs = [(f"frobnicate the {noun}", "summarize") for noun in ("policy", "rules", "guideline", "notice")]
    pairs += [(f"what does the {noun} require", "inquire") for noun in ("policy", "rules", "guideline", "notice")]
    fitted = intent_model.fit(pairs)
    assert classify_intent("frobnicate zorblax", learned=fitted).action == "summarize"
    # The shipped model never saw the made-up words: without `learned` it stays an inquiry. (A known
    # document noun would not do: "<verb> the handbook" reads as a request for a summary to it.)
    assert classify_intent("frobnicate zorblax").action == "inquire"


def test_every_dev_phrasing_is_scored_once_by_a_model_that_did_not_see_it():
    results = cross_validated(folds=3)
    dev = intent_model.paraphrases("dev")
    assert sorted(r[0] for r in results) == sorted(case[0] for case in dev)
    assert {r[2] for r in results} == {"summarize", "compare", "audit", "inquire"}
