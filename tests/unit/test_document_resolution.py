"""Offline document resolution: verbatim registry titles, fuzzy distinctive words, back-references."""

from __future__ import annotations

import pytest

from shared.llm.offline.documents.resolve import resolve_documents
from shared.llm.offline.documents.vocabulary import base_title, distinctive_tokens

LIBRARY = {
    "a": "Northwind Retention Policy (2026)",
    "b": "Regulation on Personal Data (2018)",
    "c": "Northwind Travel Policy (1)",
}
REGISTRY = {"Northwind Retention Policy (2026)": "a", "Regulation on Personal Data (2018)": "b"}


@pytest.mark.parametrize(
    ("text", "registry", "ids", "source", "confidence"),
    [
        ("Summarize the Northwind Retention Policy", {}, ["a"], "fuzzy_match", "high"),
        ("Summarize the retention policy", {}, ["a"], "fuzzy_match", "medium"),
        ("Summarise the northwnd retention polcy", {}, ["a"], "fuzzy_match", "high"),
        ("What does Regulation on Personal Data (2018) say?", REGISTRY, ["b"], "inferred", "high"),
        ("compare those two docs", REGISTRY, ["a", "b"], "inferred", "high"),
        ("summarize it", REGISTRY, ["b"], "inferred", "high"),
        ("how long do we keep logs?", {}, [], "none", "low"),
    ],
)
def test_resolution(text, registry, ids, source, confidence):
    match = resolve_documents(text, registry, LIBRARY)
    assert (match.ids, match.source, match.confidence) == (ids, source, confidence)


def test_shared_words_make_a_choice():
    match = resolve_documents("what does the northwind policy say", {}, LIBRARY)
    assert match.ambiguous and [d for d, _ in match.candidates] == ["a", "c"]


def test_questions_need_the_title_itself():
    assert resolve_documents("what personal data do we hold", {}, LIBRARY, strict=True).ids == []
    assert resolve_documents("what personal data do we hold", {}, LIBRARY).ids == ["b"]
    assert resolve_documents("In the Northwind Travel Policy, who books flights?", {}, LIBRARY, strict=True).ids == [
        "c"
    ]


def test_title_helpers():
    assert base_title("Data Policy (v2)") == "Data Policy"
    assert distinctive_tokens("Regulation on Personal Data (2018)") == ["personal", "data"]


TAGGED_LIBRARY = {
    "gdpr": "Regulation on Personal Data Processing (1)",
    "cap": "Capital Requirements Guideline (2025)",
    "gpl2": "GNU General Public License v2 (1)",
    "ret": "Northwind Retention Policy (2026)",
    "trv": "Northwind Travel Policy (1)",
}
TAGGED_TYPES = {"gdpr": "regulatory_source", "cap": "regulatory_source", "gpl2": "regulatory_source"}
TAGGED_TYPES |= {"ret": "company_policy", "trv": "company_policy"}


@pytest.mark.parametrize(
    ("text", "tagged"),
    [
        # The tagged document is the one of the kind named: no choice among the library's others.
        ("Which technical measures does the regulation mention for security of processing?", "gdpr"),
        ("What can happen to an employee who breaches the policy?", "ret"),
        # "the act of handing over" is a deed, not a document.
        ("Can I charge for the act of handing over a copy of GPLv2 software?", "gpl2"),
    ],
)
def test_a_question_about_a_tagged_document_of_the_kind_it_names_asks_nothing(text, tagged):
    match = resolve_documents(
        text, {}, TAGGED_LIBRARY, strict=True, action="inquire", tagged=[tagged], doc_types=TAGGED_TYPES
    )
    assert (match.ids, match.candidates) == ([tagged], [])


def test_compare_reads_a_typed_reference_beside_a_tag_as_another_document():
    match = resolve_documents(
        "Compare @[Northwind Retention Policy (2026)] with the regulation",
        {},
        TAGGED_LIBRARY,
        action="compare",
        tagged=["ret"],
        doc_types=TAGGED_TYPES,
    )
    assert {d for d, _ in match.candidates} == {"gdpr", "cap", "gpl2"}


def test_a_phrase_names_the_title_most_of_its_words_name():
    library = {**TAGGED_LIBRARY, "ret": "Northwind Data Retention Policy (1)", "jdk": "OpenJDK 17 Notices (1)"}
    retention = resolve_documents("Who owns the data retention policy?", {}, library, strict=True, action="inquire")
    assert (retention.ids, retention.candidates) == (["ret"], [])
    # One word of four ("public") does not make "the public suffix list file" a GNU licence.
    suffix = resolve_documents(
        "Can I remove the public suffix list file from the JDK?", {}, library, strict=True, action="inquire"
    )
    assert "gpl2" not in suffix.ids and not suffix.candidates
