"""The answer-evaluation set is well formed: sizes the issue asks for, gold facts on their pages,
a split that is deterministic and roughly even, and the scoring functions of the benchmark."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bench.answer_metrics import answer_sentences, bears_on, finds_fact, gold_window, precision, quote_on_page
from examples.eval.eval_set import (
    load_intents,
    load_questions,
    normalise,
    page_of,
    page_texts,
    split_of,
)
from examples.eval.make_eval_pdfs import DOCUMENTS, build_corpus
from services.actions.inquire import UNANSWERED_LEAD
from services.actions.whole_read import unanswered_lead

ACTIONS = {"summarize", "inquire", "compare", "audit"}


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, list[str]]:
    pdfs = build_corpus(tmp_path_factory.mktemp("eval-pdfs"))
    return {slug: page_texts(path) for slug, path in pdfs.items()}


def test_sizes_match_the_issue(pages):
    questions = load_questions()
    answerable = [q for q in questions if q.answerable]
    assert len(DOCUMENTS) >= 20
    assert len(questions) >= 200 and len(questions) - len(answerable) >= 40
    assert len(load_intents()) >= 150
    lengths = sorted(len(p) for p in pages.values())
    assert lengths[0] == 1 and lengths[-1] >= 40, "documents of very different lengths"


def test_ids_are_unique_and_documents_known():
    questions = load_questions()
    intents = load_intents()
    assert len({q.id for q in questions}) == len(questions)
    assert len({i.id for i in intents}) == len(intents)
    assert all(q.doc is None or q.doc in DOCUMENTS for q in questions)
    assert {i.action for i in intents} == ACTIONS


def test_every_gold_fact_starts_on_its_page(pages):
    for q in load_questions():
        if q.answerable:
            assert page_of(pages[q.doc], q.answer) == q.page, q.id


def test_split_is_fixed_and_both_halves_hold_every_kind():
    assert [split_of(x) for x in ("a001", "u001", "p001")] == [split_of(x) for x in ("a001", "u001", "p001")]
    questions = load_questions()
    counts = Counter((q.answerable, q.split) for q in questions)
    for kind in (True, False):
        dev, test = counts[(kind, "dev")], counts[(kind, "test")]
        assert min(dev, test) >= 0.35 * (dev + test)
    intents = Counter((i.action, i.split) for i in load_intents())
    assert all(intents[(a, s)] >= 10 for a in ACTIONS for s in ("dev", "test"))


def test_page_of_counts_a_fact_over_a_page_break_on_its_first_page():
    assert page_of(["one two", "three four"], "two three") == 1
    assert page_of(["one two", "three four"], "four") == 2
    assert page_of(["one two"], "five") is None


def test_scoring_functions():
    document = normalise(
        "Backups rotate every ninety days. Job applicant data is retained for twelve months after the decision. "
        + "Filler sentence about nothing in particular. " * 20
        + "Access logs are kept for ninety days."
    )
    window = gold_window(document, "retained for twelve months")
    response = (
        "Job applicant data is retained for twelve months after the decision. [1] "
        "Access logs are kept for ninety days. [2]"
    )
    assert answer_sentences(response)[0].startswith("Job applicant")
    assert finds_fact(response, [], "Retained for twelve  months")
    assert bears_on("Backups rotate every ninety days.", window)
    assert precision(response, window) == 0.5
    assert precision("", window) is None
    # The turn's notices are not the answer's sentences.
    assert precision(response + "\n\n_Limited information available. Verification recommended._", window) == 0.5
    # Nor is the lead saying that the closest passages may not answer directly, whichever the turn wrote.
    for lead in (UNANSWERED_LEAD, unanswered_lead(1), unanswered_lead(3)):
        assert answer_sentences(f"{lead} {response}")[0].startswith("Job applicant"), lead
        assert precision(f"{lead} {response}", window) == 0.5
    page = normalise("Intro. Job applicant data is retained for twelve months after the decision. More.")
    assert quote_on_page("Job applicant data is retained for twelve months after the decision.", page)
    assert not quote_on_page("Access logs are kept for ninety days.", page)


def test_a_fact_stated_twice_is_borne_on_at_either_place():
    document = normalise(
        "Your license is reinstated provisionally. "
        + "Filler sentence about nothing in particular. " * 20
        + "Moreover, your license is reinstated permanently if you cure the violation."
    )
    window = gold_window(document, "your license is reinstated")
    assert bears_on("Moreover, your license is reinstated permanently if you cure the violation.", window)
    assert not bears_on("Filler sentence about nothing in particular.", gold_window(document, "absent fact"))


def test_question_file_is_reproducible_from_committed_text():
    root = Path(__file__).resolve().parents[2] / "examples" / "eval"
    assert all((root / source).resolve().exists() for _, source, _ in DOCUMENTS.values())


def test_a_compound_broken_at_a_line_end_is_on_its_page_whole():
    page = normalise("commitments and off-\nbalance sheet arrangements, and short- and long-term debt")
    assert quote_on_page("Off-balance sheet arrangements, and short- and long-term debt", page)
    assert not quote_on_page("Off-balance sheet commitments", page)


def test_a_headerless_row_of_one_cell_is_on_its_page_as_its_label_and_cell():
    page = normalise("Section 4\nDescribes the AO's ConMon analysis process.\nAppendix A\nDescribes")
    assert quote_on_page("Section 4 — Describes the AO's ConMon analysis process.", page)
    assert not quote_on_page("Appendix A — Describes the security control frequencies.", page)
