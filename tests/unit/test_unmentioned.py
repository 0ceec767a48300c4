"""What a question asks about that the documents never mention (services/actions/unmentioned.py):
the words checked (those that can name a thing), abbreviations written out, the notice, and the tier
it forces (issue #27)."""

from __future__ import annotations

from services.actions.evidence import SentenceEvidence, confidence
from services.actions.unmentioned import asked_words, modified_heads, never_mentioned, spelled_out
from shared.config import Settings

SETTINGS = Settings(nats_url=None, database_url=None, database_admin_url=None)


def test_the_words_checked_are_what_the_question_is_about():
    # "how often" says what form the answer takes; fillers, short words and numbers are not topics.
    assert asked_words("How often must employees change their passwords?") == ["employees", "change", "passwords"]
    assert asked_words("Where is Northwind's head office?") == ["Northwind", "head", "office"]
    assert asked_words("What countercyclical buffer applies in 2025?") == ["countercyclical", "buffer"]
    # A verb says what is done, which a passage may say in other words ("shall be included").
    assert asked_words("Must the copyright notice be kept in copies?") == ["copyright", "notice", "copies"]
    assert asked_words("Fees, fees and fees?") == ["Fees"]
    # A deadline is the form of the answer, which the quantity check judges (services/actions/quantities.py).
    assert asked_words("What is the deadline for notifying a data breach?") == ["data", "breach"]
    # How to answer is no subject: the words of asking, arithmetic, units, periods written with a number.
    asked = asked_words("What was FY2024 free cash flow minus taxes? Answer in USD billions, to one decimal.")
    assert asked == ["free", "cash", "flow", "taxes"]
    # What the search spells out is searched for in its own words ("capex", a line item's other name).
    assert asked_words("What were capex and dividends?") == []
    # A verb's past form that is also a rarer noun is the verb.
    assert asked_words("Why net sales fell and margins rose") == ["sales", "margins"]


def test_a_compound_names_the_kind_of_its_head():
    assert modified_heads("How long are payroll records kept?") == {"payroll": "records"}
    assert modified_heads("What is the maximum loan-to-value ratio for a mortgage?") == {"loan-to-value": "ratio"}
    # Apart by punctuation, no compound; a name or an adjective describes rather than names a kind.
    assert modified_heads("Which records, payroll or tax, are kept?") == {}
    assert modified_heads("Can I add extra restrictions?") == {}
    # A subject and its verb are no compound, nor is a determiner.
    assert modified_heads("What happens if a court finds part of the MPL unenforceable?") == {}
    assert modified_heads("What should an interactive program print when it starts?") == {}
    assert modified_heads("Can employees work remotely from another country?") == {}
    # A possessive says whose, not which kind; a table the question points at is no subject.
    assert modified_heads("Does any third party track user's information on the company's website?") == {}
    assert modified_heads("How many stores are in the store count table?") == {"store": "count"}


def test_an_abbreviation_counts_as_mentioned_where_the_passages_write_it_out():
    assert spelled_out("MLRO", "report it to the Money Laundering Reporting Officer without delay")
    assert spelled_out("GPL", "the GNU General Public License, version 3")
    assert spelled_out("SaaS", "every cloud service, including software-as-a-service tools bought by teams")
    assert not spelled_out("GDPR", "the general data protection principles")
    # Only what is written as an abbreviation: any short word spells the initials of some run of words.
    assert not spelled_out("fine", "for its new employees")


def test_the_notice_names_what_is_never_mentioned():
    assert never_mentioned([]) is None
    assert never_mentioned(["leverage"]) == "Nothing in your documents mentions “leverage”."
    assert never_mentioned(["annual", "leave", "payroll"]) == (
        "Nothing in your documents mentions “annual”, “leave” or “payroll”."
    )


def test_a_word_never_mentioned_makes_any_tier_low_but_a_computed_figure():
    strong = SETTINGS.similarity.confidence_high + 0.1
    answering = SentenceEvidence(answers=0.9, closest=0.9)
    assert confidence(strong, answering, SETTINGS) == "high"
    assert confidence(strong, SentenceEvidence(answers=0.9, closest=0.9, unmentioned=("leverage",)), SETTINGS) == "low"
    computed = SentenceEvidence(answers=0.0, closest=0.9, computes=True, unmentioned=("ebitda",))
    assert confidence(strong, computed, SETTINGS) == "high"
