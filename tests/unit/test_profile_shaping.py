"""The profile in every prompt, in the web query, and in the offline engine's ranking."""

from __future__ import annotations

from services.actions.profile import web_query
from shared.llm.offline.compose import naming
from shared.llm.prompts import build_prompt
from shared.llm.schemas import AnswerInputs, AuditInputs, AuditTarget, Passage, Profile

BANKER = Profile(industry="Banking", location="Malaysia", company="Acme Bank")
PASSAGE = Passage(n=1, document_id="d1", document="Capital Guidelines (2024)", text="Banks must hold 8% capital.")


def test_the_web_query_is_the_standalone_query_with_the_documents_and_the_users_place_and_trade() -> None:
    query = web_query("minimum capital ratio", ["Capital Guidelines (2024)"], BANKER)
    assert query == "minimum capital ratio Capital Guidelines Malaysia Banking"
    # What the query already says is not repeated; without a profile or documents it is the query.
    assert web_query("capital ratio in Malaysia", [], BANKER) == "capital ratio in Malaysia Banking"
    assert web_query("capital ratio", [], Profile()) == "capital ratio"


def test_every_actions_prompt_carries_the_profile_audit_included() -> None:
    answer = build_prompt("inquire", AnswerInputs(query="q", passages=[PASSAGE], profile=BANKER))
    audit = build_prompt(
        "audit",
        AuditInputs(
            themes=["Banks must hold 10% capital."],
            targets=[AuditTarget(document_id="d1", document="Capital Guidelines (2024)", evidence=[[PASSAGE]])],
            profile=BANKER,
        ),
    )
    for prompt in (answer, audit):
        assert "The user works in: Banking, Malaysia, Acme Bank." in prompt.messages[1].content
    bare = build_prompt("inquire", AnswerInputs(query="q", passages=[PASSAGE]))
    assert "The user works in" not in bare.messages[1].content


def test_a_sentence_names_a_place_or_trade_in_its_inflected_forms() -> None:
    names = ["Malaysia", "Banking"]
    assert naming(names, "Malaysian banks must keep records.") == names
    assert naming(["Insurance"], "Insurers must keep policy records.") == ["Insurance"]
    assert naming(["Austria"], "Australian rules differ.") == []
