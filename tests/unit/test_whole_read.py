"""Which tagged scopes one search reads whole (services/actions/whole_read.py), and what a gap is."""

from __future__ import annotations

from services.actions.evidence import SentenceEvidence
from services.actions.whole_read import searched_whole, tagged_per_doc_k, unanswered_lead, whole_notice
from shared.config import Settings

SETTINGS = Settings(per_doc_k=4, total_k=15)


def test_one_tagged_document_gets_the_whole_search_and_a_few_share_it():
    assert tagged_per_doc_k(SETTINGS, 1) == 15
    assert tagged_per_doc_k(SETTINGS, 3) == 5
    assert tagged_per_doc_k(SETTINGS, 10) == 4


def test_a_short_document_is_read_whole_and_a_long_one_is_not():
    assert searched_whole([1], 1, SETTINGS)
    assert searched_whole([15], 1, SETTINGS)
    assert not searched_whole([16], 1, SETTINGS)


def test_every_tagged_document_must_fit_its_share_of_the_search():
    assert searched_whole([5, 5, 5], 3, SETTINGS)
    assert not searched_whole([6, 2, 2], 3, SETTINGS)  # one of them has more chunks than its share
    assert not searched_whole([4, 4, 4, 4], 4, SETTINGS)  # each fits its share, together they do not


def test_a_document_not_found_ready_is_not_read():
    assert not searched_whole([2], 2, SETTINGS)
    assert not searched_whole([], 0, SETTINGS)


def test_the_lead_names_one_document_or_several():
    assert unanswered_lead(1).startswith("The tagged document does not seem to answer this directly")
    assert unanswered_lead(2).startswith("The tagged documents do not seem to answer this directly")
    assert (
        whole_notice(1)
        == "Only the tagged document was searched; to search all your documents, ask again without tagging it."
    )
    assert "the tagged documents were searched" in whole_notice(2) and whole_notice(2).endswith("tagging them.")


def test_a_gap_is_a_word_or_a_quantity_the_documents_lack_unless_their_rows_compute_it():
    assert SentenceEvidence(unmentioned=("payroll",)).names_a_gap
    assert SentenceEvidence(unstated=True).names_a_gap
    assert not SentenceEvidence(unstated=True, computes=True).names_a_gap
    assert not SentenceEvidence(closest=0.2).names_a_gap
