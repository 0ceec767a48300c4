"""The kind of quantity a question asks for and whether a sentence states one (services/actions/quantities.py),
and the tier a quantity no sentence about the question states forces (issue #27)."""

from __future__ import annotations

from services.actions.evidence import SentenceEvidence, confidence
from services.actions.quantities import asked_kind, states
from shared.config import Settings

SETTINGS = Settings(nats_url=None, database_url=None, database_admin_url=None)


def test_the_kind_asked():
    assert asked_kind("How many employees does Northwind have?") == "count"
    assert asked_kind("How many words may a Front-Cover Text have?") == "count"
    # A count of time units asks how many of them: a period.
    assert asked_kind("Within how many days must the MLRO file a report?") == "period"
    assert asked_kind("How many more years are the records kept?") == "period"
    assert asked_kind("Within how many business days must a request be answered?") == "period"
    assert asked_kind("How much is the fee?") == "amount"
    assert asked_kind("What percentage of sales came from services?") == "amount"
    assert asked_kind("How long are payroll records kept?") == "duration"
    assert asked_kind("Within what time must a breach be notified?") == "duration"
    # A deadline or a time limit names the form of a time asked, as "how long" does.
    assert asked_kind("What is the deadline for notifying a breach to the authority?") == "duration"
    assert asked_kind("What time limit applies to an access request?") == "duration"
    assert asked_kind("How often are access rights reviewed?") == "frequency"
    assert asked_kind("Who approves exceptions?") is None


def test_a_sentence_states_the_kind_asked():
    assert states("count", "A Front-Cover Text may be at most five words.")
    assert states("count", "The company had 1,525,000 employees.")
    assert not states("count", "It applies to every employee, contractor and supplier.")
    assert states("duration", "Job applicant data is retained for twelve months after the decision.")
    assert states("duration", "The breach is notified without undue delay.")
    assert states("duration", "Records are kept for as long as the person remains subscribed.")
    assert states("duration", "We have served as the Company's auditor since 1990.")
    assert not states("duration", "Every cloud account must sign in through single sign-on.")
    assert states("period", "The MLRO files the report within thirty calendar days.")
    assert states("period", "Your rights are reinstated if you cure the violation prior to 30 days after notice.")
    # A bound in words says how long, but not how many days.
    assert not states("period", "Their licences are not terminated so long as they remain in full compliance.")
    assert states("frequency", "Access rights are reviewed every quarter by the data owner.")
    assert states("frequency", "All staff must complete training every year.")
    assert states("frequency", "The policy is reviewed annually.")
    # "every" alone is not a frequency: "every account" is no time unit.
    assert not states("frequency", "Employees must never share passwords, and every account must use MFA.")


def test_a_quantity_no_sentence_states_makes_any_tier_low_but_a_computed_figure():
    strong = SETTINGS.similarity.confidence_high + 0.1
    assert confidence(strong, SentenceEvidence(answers=0.9, closest=0.9, unstated=True), SETTINGS) == "low"
    computed = SentenceEvidence(answers=0.9, closest=0.9, computes=True, unstated=True)
    assert confidence(strong, computed, SETTINGS) == "high"
