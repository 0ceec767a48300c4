"""Clean extractive answers (issue #27 item 5): a heading that a document runs into its paragraph is
not quoted as part of the answer, and a title-case subject of an ordinary sentence is kept."""

from __future__ import annotations

import pytest

from shared.text.sentences import split_sentences


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "How Your Personal Information is Protected Online To prevent unauthorized access, we have put "
            "procedures in place.",
            "To prevent unauthorized access, we have put procedures in place.",
        ),
        (
            "How You Can Control the Information We Collect About You You can always choose not to submit it.",
            "You can always choose not to submit it.",
        ),
        (
            "Data Protection Officer The controller shall designate a data protection officer.",
            "The controller shall designate a data protection officer.",
        ),
    ],
)
def test_a_run_in_heading_is_not_part_of_the_sentence(text: str, said: str) -> None:
    assert split_sentences(text) == [said]


@pytest.mark.parametrize(
    "text",
    [
        "The Company and Its Affiliates may share your data with partners.",
        "Our Privacy Policy applies to all users of the site.",
        "Exceptions require written approval from the Data Protection Officer and the CISO.",
    ],
)
def test_an_ordinary_sentence_keeps_its_title_case_words(text: str) -> None:
    assert split_sentences(text) == [text]


def test_numbered_steps_run_together_are_read_as_one_list() -> None:
    # MuPDF reads a markdown list as one block; its steps end without a full stop.
    steps = '1. Go to Settings > Billing 2. Click "Manage Subscription" 3. Select "Cancel Subscription"'
    assert split_sentences(f"To cancel your subscription:\n\n{steps}") == [steps]
    # Numbered full sentences (a filing's footnotes) are still sentences of their own.
    notes = "1. Includes commissions and asset management revenues. 2. Includes funding costs of the businesses."
    assert split_sentences(notes) == [
        "Includes commissions and asset management revenues.",
        "Includes funding costs of the businesses.",
    ]
