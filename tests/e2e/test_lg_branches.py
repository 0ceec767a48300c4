"""Regenerate and edit-and-resend on `/lg`, as Agent Chat UI and useStream do them with the Python
`langgraph-sdk`: a run from the parent checkpoint of the state where a message was first seen.
History keeps every branch, each state with its parent and its own branch's messages."""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx
import pytest
from langgraph_sdk import get_client

from tests.e2e.helpers import ingest_demo_policy

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
    leaves = [
        s
        for s in after
        if s["checkpoint"]["checkpoint_id"]
        not in {p["parent_checkpoint"]["checkpoint_id"] for p in after if p["parent_checkpoint"]}
    ]
    assert sorted(len(s["values"]["messages"]) for s in leaves) == [4, 4, 4]
    assert refused[0][0] == 422 and "checkpoint.checkpoint_id" in refused[0][1]["message"]
    assert refused[1][0] == 422 and refused[1][1]["details"]["field"] == "checkpoint.checkpoint_id"


def test_a_resume_naming_a_checkpoint_answers_only_the_question_waiting_there(system, policy):
    ask = {"messages": [{"type": "human", "content": "Summarize and audit the tagged policy"}]}

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
        answered = await client.runs.wait(tid, "policypal", command={"resume": "summarize"}, checkpoint=waiting)
        return older, refused, answered

    older, refused, answered = asyncio.run(flow())
    assert refused is not None and refused.status_code == 422
    assert refused.json()["error"]["details"] == {"field": "checkpoint.checkpoint_id"}
    assert "__interrupt__" not in answered and answered["messages"][-1]["response_metadata"]["action"] == "summarize"
