"""Offline, the profile shapes summaries and comparisons too: two people with different onboarding
answers read the same documents' rules that concern them first, and are told whose rules apply."""

from __future__ import annotations

import pytest

from shared.llm.offline import answers
from shared.llm.schemas import AnswerInputs, Passage, Profile

BANKER = Profile(company="Acme Bank", location="Malaysia", industry="Banking")
INSURER = Profile(company="Lion Assurance", location="Singapore", industry="Insurance")
RULES = "Regional Rules (2025)"
REGIONAL = [
    Passage(n=1, document_id="r", document=RULES, text="Record retention differs by country and by sector."),
    Passage(
        n=2,
        document_id="r",
        document=RULES,
        text="In Malaysia, banks must keep customer transaction records for seven years after the account is closed.",
    ),
    Passage(
        n=3,
        document_id="r",
        document=RULES,
        text="In Singapore, insurers must keep customer policy records for five years after the policy ends.",
    ),
    Passage(
        n=4,
        document_id="r",
        document=RULES,
        text="Firms elsewhere must keep customer records for as long as the business relationship lasts.",
    ),
]
MALAYSIAN, SINGAPOREAN = "Malaysian Banking Rules (1)", "Singapore Insurance Rules (1)"
TWO_DOCUMENTS = [
    Passage(
        n=1,
        document_id="m",
        document=MALAYSIAN,
        text="Banks in Malaysia must keep transaction records for seven years after an account is closed.",
    ),
    Passage(
        n=2,
        document_id="s",
        document=SINGAPOREAN,
        text="Insurers in Singapore must keep policy records for five years after the policy ends.",
    ),
]


def at(text: str, word: str) -> int:
    found = text.find(word)
    return found if found >= 0 else len(text) + 1


async def test_a_summary_leads_with_the_readers_own_rule() -> None:
    said = {}
    for who, profile in (("banker", BANKER), ("insurer", INSURER)):
        inputs = AnswerInputs(query="Summarize", passages=REGIONAL, sentences=2, profile=profile)
        said[who] = await answers.summarize(inputs)
    assert at(said["banker"], "Malaysia") < at(said["banker"], "Singapore"), said["banker"]
    assert at(said["insurer"], "Singapore") < at(said["insurer"], "Malaysia"), said["insurer"]
    assert "*Ranked for Acme Bank: rules that name Malaysia or Banking come first.*" in said["banker"]
    assert "*Ranked for Lion Assurance: rules that name Singapore or Insurance come first.*" in said["insurer"]
    plain = await answers.summarize(AnswerInputs(query="Summarize", passages=REGIONAL, sentences=2))
    assert "Ranked for" not in plain


@pytest.mark.parametrize("focus", ["", "record retention"])
async def test_a_comparison_says_whose_rules_apply(focus: str) -> None:
    said = {}
    for who, profile in (("banker", BANKER), ("insurer", INSURER)):
        inputs = AnswerInputs(query="Compare", passages=TWO_DOCUMENTS, focus=focus, sentences=2, profile=profile)
        task = answers.compare_focused if focus else answers.compare_holistic
        said[who] = await task(inputs)
    banker = f"Acme Bank: **{MALAYSIAN}** names Malaysia and Banking; **{SINGAPOREAN}** does not."
    insurer = f"Lion Assurance: **{SINGAPOREAN}** names Singapore and Insurance; **{MALAYSIAN}** does not."
    assert f"Whose rules apply to {banker}" in said["banker"], said["banker"]
    assert f"Whose rules apply to {insurer}" in said["insurer"], said["insurer"]
