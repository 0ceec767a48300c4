"""The confidence tier of inquire's evidence (services/actions/evidence.py): chunks say how close
the passages are to the question, their sentences lift or lower that (issue #27)."""

from __future__ import annotations

from services.actions.evidence import SentenceEvidence, asks_something, confidence, holds_enough
from shared.config import Settings
from shared.text.search_query import content_terms

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
