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
