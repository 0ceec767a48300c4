"""The words of a question that name its document do not pick the answering sentence
(shared/llm/offline/document_names.py, issue #27 fifth round)."""

from __future__ import annotations

import asyncio

from shared.llm.offline.answers import inquire
from shared.llm.offline.document_names import naming_terms, without_document_names
from shared.llm.schemas import AnswerInputs, Passage


def test_a_title_named_in_full_or_by_its_initials_names_the_document():
    assert naming_terms("What is the purpose of the GNU Free Documentation License?", ["GNU FDL"]) == set()
    assert naming_terms(
        "What is the purpose of the GNU Free Documentation License?", ["GNU Free Documentation License 1.3 (1)"]
    ) == {"gnu", "free", "docume", "licens"}
    assert naming_terms("Which law governs the MPL 1.1?", ["Mozilla Public License 1.1 (1)"]) == {"mpl", "1.1"}
    assert naming_terms(
        "How is my licence reinstated after I stop violating the GPLv3?", ["GNU General Public License v3 (1)"]
    ) == {"gplv3"}
    assert naming_terms("How often must staff do AML training?", ["Anti-Money Laundering Policy (1)"]) == {"aml"}


def test_one_word_of_a_title_is_what_the_question_asks_about_not_a_name():
    assert (
        naming_terms(
            "What encryption is required for data stored in the cloud?", ["Northwind Cloud Security Standard (1)"]
        )
        == set()
    )
    assert without_document_names("How long is data retained?", ["Northwind Data Retention Policy (1)"]) == (
        "How long is data retained?"
    )


def test_a_sentence_that_repeats_the_licence_name_does_not_join_the_answer():
    # The Mozilla Public License 2.0 (examples/eval, a dev question): the notice names the MPL, a
    # word the answering sentence lacks, and used to join the answer for covering it.
    text = (
        "Mozilla Foundation is the license steward. Except as provided in Section 10.3, no one other "
        "than the license steward has the right to modify or publish new versions of this License.\n\n"
        "This Source Code Form is subject to the terms of the Mozilla Public License, v. 2.0. If a copy "
        "of the MPL was not distributed with this file, You can obtain one at https://mozilla.org/MPL/2.0/."
    )
    passage = Passage(n=1, document_id="d", document="Mozilla Public License 2.0 (1)", page=1, text=text)
    answer = asyncio.run(inquire(AnswerInputs(query="Who is the licence steward of the MPL?", passages=[passage])))
    assert answer.startswith("Mozilla Foundation is the license steward."), answer
    assert "If a copy of the MPL" not in answer, answer


def test_a_title_printed_with_its_version_is_no_row_the_question_names():
    # A policy's title line with its version reads as a row ("Data Retention Policy" · 2.0); a question
    # naming the policy by two words of its title asked "how many months", and the title led the answer.
    title = "Data Retention Policy 2.0"
    text = (
        f"{title}\n\n1. Purpose\n\nThis policy sets how long Northwind keeps personal data.\n\n2. Retention periods\n\n"
        "Job applicant records are retained for 12 months after the recruitment decision. Payroll records are "
        "kept for six years."
    )
    passage = Passage(n=1, document_id="d", document=title, page=1, text=text)
    question = "How many months are applicant records kept under the retention policy?"
    answer = asyncio.run(inquire(AnswerInputs(query=question, passages=[passage], sentences=2)))
    assert answer == "Job applicant records are retained for 12 months after the recruitment decision. [1]", answer
    # A line the question names beyond the title's words is still a row that leads.
    title = "Travel Expense Policy 2.0"
    table = (
        f"{title}\n\nThis policy sets the allowances staff may claim.\n\nDomestic travel allowance $ 1,200\n\n"
        "International travel allowance $ 2,400"
    )
    tabled = Passage(n=1, document_id="d", document=title, page=1, text=table)
    question = "How much is the international travel allowance under the travel expense policy?"
    answer = asyncio.run(inquire(AnswerInputs(query=question, passages=[tabled], sentences=2)))
    assert answer.startswith("International travel allowance $ 2,400"), answer
