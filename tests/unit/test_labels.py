"""Document labels: "Title (Version)" as the feature spec shows them, a bare revision as "v1"."""

from __future__ import annotations

import pytest

from shared.llm.offline.documents.vocabulary import base_title, version_of
from shared.text.labels import document_label


@pytest.mark.parametrize(
    ("version", "label"),
    [
        ("2024", "Capital Guidelines (2024)"),
        ("Q1 2025", "Capital Guidelines (Q1 2025)"),
        ("1", "Capital Guidelines (v1)"),
        ("2.1", "Capital Guidelines (v2.1)"),
        ("", "Capital Guidelines"),
    ],
)
def test_a_document_is_named_title_then_version(version: str, label: str) -> None:
    assert document_label("Capital Guidelines", version) == label


def test_the_offline_reader_takes_a_revision_label_back_to_its_number() -> None:
    """A user writes "version 2", the label says "(v2)": both mean the same revision."""
    assert version_of(document_label("Retention Policy", "2")) == "2"
    assert version_of(document_label("Retention Policy", "2024")) == "2024"
    assert base_title(document_label("Retention Policy", "2")) == "Retention Policy"
