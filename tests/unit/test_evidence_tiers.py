"""The confidence tier of inquire's evidence (services/actions/evidence.py): chunks say how close
the passages are to the question, their sentences lift or lower that (issue #27)."""

from __future__ import annotations

from services.actions.evidence import SentenceEvidence, asks_something, computes, confidence, holds_enough
from shared.config import Settings
from shared.text.search_query import content_terms
from shared.text.sentences import Sentence
from shared.text.tables import render_row

SETTINGS = Settings(nats_url=None, database_url=None, database_admin_url=None)
IN_FORCE = SETTINGS.similarity


def test_a_sentence_that_answers_lifts_weak_chunks_to_medium():
    weak = IN_FORCE.confidence_medium - 0.05
    assert confidence(weak, SentenceEvidence(answers=IN_FORCE.sentence_answers, closest=0.6), SETTINGS) == "medium"
    assert confidence(weak, SentenceEvidence(answers=0.0, closest=0.6), SETTINGS) == "low"


def test_no_sentence_about_the_question_lowers_any_tier_to_low():
    closest_far = SentenceEvidence(answers=0.0, closest=IN_FORCE.sentence_on_topic - 0.05)
    assert confidence(IN_FORCE.confidence_medium + 0.01, closest_far, SETTINGS) == "low"
    assert confidence(IN_FORCE.confidence_high + 0.01, closest_far, SETTINGS) == "low"
    near = SentenceEvidence(answers=0.0, closest=IN_FORCE.sentence_on_topic + 0.05)
    assert confidence(IN_FORCE.confidence_high + 0.01, near, SETTINGS) == "high"


def test_unmeasured_sentences_leave_the_chunk_tier_alone():
    assert confidence(IN_FORCE.confidence_high + 0.01, SentenceEvidence(), SETTINGS) == "high"
    assert confidence(IN_FORCE.confidence_medium + 0.01, SentenceEvidence(), SETTINGS) == "medium"


def test_a_sentence_answers_only_if_it_holds_more_than_a_third_of_the_question():
    question = content_terms("What is the deadline for notifying a data breach to the supervisory authority?")
    near_miss = content_terms("A breach of a minimum ratio must be reported to the Authority within two business days.")
    assert not holds_enough(near_miss, question)
    assert holds_enough(
        content_terms("Exceptions require written approval."), content_terms("Who approves exceptions?")
    )


def test_the_on_topic_threshold_is_the_embedding_models():
    assert IN_FORCE.sentence_on_topic == SETTINGS.thresholds().sentence_on_topic == 0.4
    assert Settings(nats_url=None, embedding_model="text-embedding-3-small").similarity.sentence_on_topic == 0.0
    assert Settings(nats_url=None, sentence_on_topic=0.3).similarity.sentence_on_topic == 0.3


def test_a_topic_of_one_or_two_words_asks_nothing_a_sentence_could_be_far_from():
    assert not asks_something("Summary")
    assert not asks_something("Retention?")
    assert not asks_something("GDPR fines")
    assert asks_something("What is the sick pay policy?")
    assert asks_something("Who approves exceptions?")
    assert asks_something("Which court settles disputes under the MIT licence?")


def test_a_figure_computed_from_rows_the_passages_hold_is_not_low():
    statement = [
        Sentence(0, render_row(None, "Total net sales", [("2024", "391,035"), ("2023", "383,285")])),
        Sentence(0, render_row(None, "Operating income", [("2024", "123,216"), ("2023", "114,301")])),
        Sentence(1, "Net income $ 93,736 $ 96,995 Depreciation and amortization 11,445 11,519"),
    ]
    # A ratio by its name, and one the question defines: every line it is computed from is a row.
    assert computes("Calculate the operating margin for FY2024.", statement)
    assert computes("What was net income as a percentage of total net sales?", statement)
    # A gross margin the filing does not print is computed from net sales and cost of sales.
    with_costs = [*statement, Sentence(0, render_row(None, "Cost of sales", [("2024", "210,352")]))]
    assert computes("What was the gross margin?", with_costs) and not computes("What was the gross margin?", statement)
    # A line missing (the current ratio's), or prose that only mentions a line, computes nothing.
    assert not computes("What was the current ratio?", statement)
    prose = [Sentence(0, "Operating income rose while net sales fell."), statement[1]]
    assert not computes("Calculate the operating margin for FY2024.", prose)
    weak = IN_FORCE.confidence_medium - 0.05
    far = IN_FORCE.sentence_on_topic - 0.05
    assert confidence(weak, SentenceEvidence(closest=far, computes=True), SETTINGS) == "medium"
    assert confidence(IN_FORCE.confidence_high + 0.01, SentenceEvidence(closest=far, computes=True), SETTINGS) == "high"
