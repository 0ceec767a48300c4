"""Regenerate and edit-and-resend on `/lg`, as Agent Chat UI and useStream do them with the Python
`langgraph-sdk`: a run from the parent checkpoint of the state where a message was first seen.
History keeps every branch, each state with its parent and its own branch's messages."""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx
import pytest
from langgraph_sdk import get_client

from tests.e2e.helpers import ingest_demo_policy, leaves, upload, wait_ingested

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def policy(system) -> dict:
    with system.client() as client:
        return ingest_demo_policy(client)


def human(text: str, policy: dict) -> dict:
    return {"messages": [{"type": "human", "content": text}], "tagged_doc_ids": [policy["id"]], "action": "inquire"}


def first_seen(history: list[dict], message_id: str) -> dict:
    """The oldest state showing the message, as useStream's getMessagesMetadata finds it."""
    return [s for s in history if any(m["id"] == message_id for m in s["values"]["messages"])][-1]


def texts(state: dict) -> list[tuple[str, str]]:
    return [(m["type"], m["content"][:30]) for m in state["values"]["messages"]]


def test_regenerate_and_edit_fork_the_thread_and_history_shows_every_branch(system, policy):
    async def flow():
        client = get_client(url=f"{system.url}/lg", api_key=system.token)
        tid = (await client.threads.create())["thread_id"]
        await client.runs.wait(tid, "policypal", input=human("How long are job applicant records kept?", policy))
        head = (await client.threads.get_state(tid))["checkpoint"]
        # The checkpoint useStream sends with every submit (the branch's head): no fork, a follow-up.
        await client.runs.wait(
            tid, "policypal", input=human("Who may access personnel files?", policy), checkpoint=head
        )
        before = await client.threads.get_history(tid, limit=200)
        answer = before[0]["values"]["messages"][-1]
        regenerate_from = first_seen(before, answer["id"])["parent_checkpoint"]
        regenerated = await client.runs.wait(tid, "policypal", checkpoint=regenerate_from)
        middle = await client.threads.get_history(tid, limit=200)
        question = middle[0]["values"]["messages"][2]
        edit_from = first_seen(middle, question["id"])["parent_checkpoint"]
        edited = await client.runs.wait(
            tid, "policypal", input=human("How long are payroll records kept?", policy), checkpoint=edit_from
        )
        after = await client.threads.get_history(tid, limit=200)
        state = await client.threads.get_state(tid)
        refused = []
        for checkpoint in ({"checkpoint_id": "not-an-id"}, {"checkpoint_id": "1f0c0000-0000-6000-8000-000000000000"}):
            try:
                await client.runs.wait(tid, "policypal", checkpoint=checkpoint)
            except httpx.HTTPStatusError as exc:
                refused.append((exc.response.status_code, exc.response.json()["error"]))
        return before, regenerated, edited, after, state, answer, regenerate_from, refused

    before, regenerated, edited, after, state, answer, regenerate_from, refused = asyncio.run(flow())
    assert [t for t, _ in texts(before[0])] == ["human", "ai", "human", "ai"]
    # Regenerate: the same question, a new answer, on a new branch beside the old one.
    again = regenerated["messages"]
    assert [m["type"] for m in again] == ["human", "ai", "human", "ai"]
    assert again[2]["content"] == "Who may access personnel files?" and again[3]["id"] != answer["id"]
    assert again[:2] == before[0]["values"]["messages"][:2]
    # Edit and resend of the second question: the thread forks before it, the old turns stay in history.
    assert [(m["type"], m["content"]) for m in edited["messages"][:3]] == [
        ("human", "How long are job applicant records kept?"),
        ("ai", edited["messages"][1]["content"]),
        ("human", "How long are payroll records kept?"),
    ]
    assert len(edited["messages"]) == 4 and state["values"]["messages"] == edited["messages"]
    # Every branch is in the history, each state with a parent (but the root) and its own branch's messages.
    ids = {s["checkpoint"]["checkpoint_id"] for s in after}
    assert all(s["parent_checkpoint"]["checkpoint_id"] in ids for s in after if s["parent_checkpoint"])
    children = Counter(s["parent_checkpoint"]["checkpoint_id"] for s in after if s["parent_checkpoint"])
    # Two forks, each at a turn's `input` checkpoint: the regenerated turn and the edited one.
    assert sorted(children.values())[-2:] == [2, 2] and sorted(children.values())[-3] == 1
    forked = [s for s in after if children[s["checkpoint"]["checkpoint_id"]] == 2]
    assert all(s["metadata"]["source"] == "input" for s in forked)
    assert regenerate_from["checkpoint_id"] in ids
    answers = {m["id"] for s in after for m in s["values"]["messages"] if m["type"] == "ai"}
    assert answer["id"] in answers and again[3]["id"] in answers and edited["messages"][3]["id"] in answers
    assert sorted(len(s["values"]["messages"]) for s in leaves(after)) == [4, 4, 4]
    assert refused[0][0] == 422 and "checkpoint.checkpoint_id" in refused[0][1]["message"]
    assert refused[1][0] == 422 and refused[1][1]["details"]["field"] == "checkpoint.checkpoint_id"


def test_a_resume_naming_an_answered_checkpoint_answers_again_on_a_new_branch(system, policy):
    """LangGraph's resume with `checkpoint`: a question answered since is answered again where it
    waited, otherwise each time, and the turn goes on as a new branch; the earlier answers stay on
    theirs. A checkpoint with no question waiting is a 422 naming the field."""
    ask = {"messages": [{"type": "human", "content": "Summarize and audit the tagged policy"}]}
    reject = {"decisions": [{"type": "reject", "message": "Not this one"}]}

    async def flow():
        client = get_client(url=f"{system.url}/lg", api_key=system.token)
        tid = (await client.threads.create())["thread_id"]
        await client.runs.wait(tid, "policypal", input=human("How long are job applicant records kept?", policy))
        older = (await client.threads.get_state(tid))["checkpoint"]
        await client.runs.wait(tid, "policypal", input={**ask, "tagged_doc_ids": [policy["id"]]})
        waiting = (await client.threads.get_state(tid))["checkpoint"]
        refused = None
        try:
            await client.runs.wait(tid, "policypal", command={"resume": "summarize"}, checkpoint=older)
        except httpx.HTTPStatusError as exc:
            refused = exc.response
        summary = await client.runs.wait(tid, "policypal", command={"resume": "summarize"}, checkpoint=waiting)
        cancelled = await client.runs.wait(tid, "policypal", command={"resume": reject}, checkpoint=waiting)
        audit_asks = await client.runs.wait(
            tid, "policypal", command={"resume": "audit"}, checkpoint_id=waiting["checkpoint_id"]
        )
        audit = await client.runs.wait(
            tid, "policypal", command={"resume": "CCTV footage must be deleted after 30 days."}
        )
        history = await client.threads.get_history(tid, limit=500)
        return refused, summary, cancelled, audit_asks, audit, history, await client.threads.get(tid)

    refused, summary, cancelled, audit_asks, audit, history, thread = asyncio.run(flow())
    assert refused is not None and refused.status_code == 422
    assert refused.json()["error"]["details"] == {"field": "checkpoint.checkpoint_id"}
    assert "__interrupt__" not in summary and summary["messages"][-1]["response_metadata"]["action"] == "summarize"
    assert cancelled["messages"][-1]["response_metadata"]["cancelled"] is True
    assert audit_asks["__interrupt__"][0]["value"]["interrupt_type"] == "text_input", audit_asks
    assert audit["messages"][-1]["response_metadata"]["action"] == "audit" and thread["status"] == "idle"
    answers = [summary["messages"][-1], cancelled["messages"][-1], audit["messages"][-1]]
    assert len({a["id"] for a in answers}) == 3  # each branch's answer is its own message
    for branch in (cancelled, audit_asks, audit):  # forked at the question: no earlier branch's answer
        assert summary["messages"][-1]["id"] not in {m["id"] for m in branch["messages"]}
    assert summary["messages"][:4] == audit["messages"][:4]  # the same turn up to its question
    # Every answer is kept in the history, each on a branch of its own.
    shown = [{m["id"] for m in s["values"]["messages"]} for s in leaves(history)]
    assert all(sum(a["id"] in ids for ids in shown) == 1 for a in answers), shown


REGISTER = "# Form Register\n\n" + "\n\n".join(f"Form {n:03d}-{chr(65 + n % 26)} Annex {n % 7}" for n in range(300))


def test_a_question_of_an_action_answered_again_on_a_new_branch(system, tmp_path):
    """The same for a question the action's own stage asks (a summary's weak sample: `retrieval_low`):
    answered at its checkpoint again, the action runs again there, on a branch of its own."""
    (tmp_path / "register.md").write_text(REGISTER)
    with system.client() as http:
        register = upload(http, tmp_path / "register.md", "Form Register", doc_type="company_policy")
        wait_ingested(http, register["id"])
    turn = {"messages": [{"type": "human", "content": "Summarize the tagged document"}], "action": "summarize"}

    async def flow():
        client = get_client(url=f"{system.url}/lg", api_key=system.token)
        tid = (await client.threads.create())["thread_id"]
        asked = await client.runs.wait(tid, "policypal", input={**turn, "tagged_doc_ids": [register["id"]]})
        waiting = (await client.threads.get_state(tid))["checkpoint"]
        anyway = await client.runs.wait(tid, "policypal", command={"resume": "continue"})
        cancelled = await client.runs.wait(tid, "policypal", command={"resume": {"type": "cancel"}}, checkpoint=waiting)
        return asked, anyway, cancelled, await client.threads.get_history(tid, limit=500)

    asked, anyway, cancelled, history = asyncio.run(flow())
    assert asked["__interrupt__"][0]["value"]["interrupt_type"] == "retrieval_low", asked
    assert anyway["messages"][-1]["response_metadata"]["cancelled"] is False
    assert cancelled["messages"][-1]["response_metadata"]["cancelled"] is True
    assert anyway["messages"][-1]["id"] not in {m["id"] for m in cancelled["messages"]}
    shown = [{m["id"] for m in s["values"]["messages"]} for s in leaves(history)]
    assert all(sum(a["messages"][-1]["id"] in ids for ids in shown) == 1 for a in (anyway, cancelled)), shown
