"""Arbitrary answers to every kind of PalAssist question, through the real bus and workers.

Each example claims a thread waiting on a question, as the gateway does, publishes a `ResumeCommand`
with a payload drawn by Hypothesis (anything JSON, plus the shapes LangGraph clients send: ids in a
JSON string, comma-separated ids, offered and foreign ids) straight onto `pp.cmd.resume`, past the
gateway's own check, and asserts what docs/architecture.md §4 and §10.1 promise whatever the client
sent: the run ends in exactly one terminal event, an error is a user-facing `invalid_answer` or
`invalid_request` (never a dead letter, never Python exception text), the thread is free at once,
and a refused answer leaves the question open for the next one. Escalations, which only a human
agent answers through the ticket API, get the same arbitrary payloads on the bus.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

import pytest
import pytest_asyncio
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from services.actions import worker as action_worker
from services.ingest import worker as ingest_worker
from services.resolver import worker as resolver_worker
from services.retrieval import worker as retrieval_worker
from shared.bus.connection import connect_bus
from shared.bus.publish import publish
from shared.contracts import ANSWER_TYPE, ChatCommand, ResumeCommand, ResumeType, ResumeValue
from shared.db import conversations, support
from shared.db.pool import open_database, tenant_tx
from shared.db.tenants import ensure_tenant
from shared.graph.runner import thread_config
from shared.graph.stage import stage_graph
from shared.runtime.service import Infra
from tests.integration.conftest import running
from tests.integration.helpers import ingest_finished, read_events, submit_file
from tests.integration.resolution_world import CORPUS, Turn, World, action, run_events, say

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="module")]

USED = ("bn23", "bn24", "retention", "travel")
# Python's own words for a failure: an error event must never carry them.
EXCEPTION_TEXT = re.compile(r"Traceback|\b[A-Z]\w*(Error|Exception)\b|badly formed")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(settings, embedder, tmp_path_factory) -> AsyncIterator[World]:
    # Retrieval thresholds pinned as in test_action_corpus.py, so a weak match asks `retrieval_low`.
    pinned = settings.model_copy(update={"min_similarity": 0.2, "confidence_medium": 0.35})
    bus = await connect_bus(pinned, name="answer-fuzz")
    db = await open_database(pinned)
    infra = Infra(settings=pinned, bus=bus, db=db)
    tenant_id, user_id = uuid.uuid4(), f"user-{uuid.uuid4().hex[:8]}"
    await ensure_tenant(pinned.admin_url, tenant_id, "Answer fuzz", user_id)
    folder = tmp_path_factory.mktemp("fuzz-corpus")
    services = [
        lambda s: ingest_worker.serve(infra, s),
        lambda s: retrieval_worker.serve(infra, s),
        lambda s: resolver_worker.serve(infra, s),
        *[lambda s, a=a: action_worker.serve_action(infra, s, a) for a in ("inquire", "summarize", "compare", "audit")],
    ]
    try:
        async with running(*services):
            world = World(infra, tenant_id, user_id)
            for key in USED:
                title, version, doc_type, source = CORPUS[key]
                path = source if isinstance(source, Path) else folder / f"{key}.md"
                if not isinstance(source, Path):
                    path.write_text(source)
                cmd = await submit_file(
                    infra, tenant_id, user_id, path, title=title, version=version, doc_type=doc_type
                )
                progress = await read_events(
                    infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_finished
                )
                assert progress[-1]["status"] == "ready", progress[-1]
                world.ids[key] = str(cmd.document_id)
            yield world
    finally:
        await bus.close()
        await db.close()


async def ask_action_choice(world: World, thread: uuid.UUID) -> Turn:
    return await say(world, thread, "Summarize and audit ", world.doc("retention"))


async def ask_doc_choice_among_offered(world: World, thread: uuid.UUID) -> Turn:
    return await say(world, thread, "Summarize the Bank Negara regulation")


async def ask_doc_choice_without_options(world: World, thread: uuid.UUID) -> Turn:
    return await say(world, thread, "Compare these", action="compare")


async def ask_text_input(world: World, thread: uuid.UUID) -> Turn:
    return await say(world, thread, action("audit"), world.doc("retention"))


async def ask_retrieval_low(world: World, thread: uuid.UUID) -> Turn:
    return await say(
        world, thread, "How are invoices archived?", action="inquire", tagged_doc_ids=[world.ids["retention"]]
    )


async def ask_escalation(world: World, thread: uuid.UUID) -> Turn:
    """A widget customer's ticket whose question escalates: the tenant has no knowledge to answer it.
    Each ticket is in a tenant of its own, so an agent's answer (seeded in the tenant's answer cache)
    never answers the next ticket's question."""
    tenant_id, customer = uuid.uuid4(), f"anon_{uuid.uuid4()}"
    await ensure_tenant(world.infra.settings.admin_url, tenant_id, "Answer fuzz shop", customer)
    async with tenant_tx(world.infra.db, tenant_id, customer) as conn:
        await conversations.create_conversation(conn, thread, tenant_id, customer, kind="support")
        await support.create_ticket(conn, thread, tenant_id, customer, "https://shop.example")
    cmd = ChatCommand(tenant_id=tenant_id, user_id=customer, thread_id=thread, message="What is the refund window?")
    await publish(world.infra.bus, world.infra.bus.subjects.cmd_chat, cmd, msg_id=str(cmd.run_id))
    OWNERS[thread] = (tenant_id, customer)
    return await run_events(world, thread, cmd.run_id)


# Who owns each escalated ticket's thread (an agent's answer acts as that customer, in that tenant).
OWNERS: dict[uuid.UUID, tuple[uuid.UUID, str]] = {}


QUESTIONS = {
    "action_choice": ask_action_choice,
    "doc_choice": ask_doc_choice_among_offered,
    "doc_choice_free": ask_doc_choice_without_options,
    "text_input": ask_text_input,
    "retrieval_low": ask_retrieval_low,
    "escalation": ask_escalation,
}


@dataclass
class Waiting:
    """A thread waiting on a question of one kind; replaced once an answer is taken."""

    thread_id: uuid.UUID
    tenant_id: uuid.UUID
    user_id: str
    question: dict[str, Any]


WAITING: dict[str, Waiting] = {}


async def waiting(world: World, name: str) -> Waiting:
    if name not in WAITING:
        thread = uuid.uuid4()
        turn = await QUESTIONS[name](world, thread)
        if name == "escalation":
            assert turn.kind == "escalation", turn.terminal
            question = {"interrupt_type": "escalation", "message": turn.terminal["message"], "options": None}
            WAITING[name] = Waiting(thread, *OWNERS[thread], question)
        else:
            expected = name.removesuffix("_free")
            assert turn.kind == "interrupt" and turn.terminal["interrupt_type"] == expected, turn.terminal
            WAITING[name] = Waiting(thread, world.tenant_id, world.user_id, turn.terminal)
    return WAITING[name]


FREE_TEXT = st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=40)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | FREE_TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(FREE_TEXT, children, max_size=3),
    max_leaves=8,
)


def client_shapes(known: list[str]) -> st.SearchStrategy[Any]:
    """Values as LangGraph clients send them, built from the offered ids, foreign ids and junk."""
    one_id = st.sampled_from(known) | st.uuids().map(str) | FREE_TEXT
    ids = st.lists(one_id, max_size=4)
    return st.one_of(
        one_id,
        ids,
        ids.map(json.dumps),
        ids.map(", ".join),
        ids.map(lambda items: json.dumps(items)[:-1]),  # a JSON list cut short
    )


def answers(question: dict[str, Any], world: World) -> st.SearchStrategy[ResumeValue]:
    offered = [o["id"] for o in question.get("options") or []]
    expected = ANSWER_TYPE[question["interrupt_type"]]
    # Mostly the question's own answer type, so that the values, not the type, are what is explored.
    types = st.sampled_from([expected] * 6 + [t for t in get_args(ResumeType) if t != expected])
    values = client_shapes(offered + list(world.ids.values())) | JSON_VALUES
    return st.builds(ResumeValue, type=types, value=values)


async def answer_claimed(world: World, thread: uuid.UUID, answer: ResumeValue, owner: Waiting | None = None) -> Turn:
    """Claim the thread as the gateway does, then put the answer on the bus unchecked."""
    tenant_id, user_id = (owner.tenant_id, owner.user_id) if owner else (world.tenant_id, world.user_id)
    cmd = ResumeCommand(tenant_id=tenant_id, user_id=user_id, thread_id=thread, resume_value=answer)
    async with tenant_tx(world.infra.db, tenant_id, user_id) as conn:
        claimed = await conversations.claim_thread(
            conn, thread, user_id, cmd.run_id, world.infra.settings.turn_timeout_s
        )
    assert claimed, "the thread was still held by the previous example's run"
    await publish(world.infra.bus, world.infra.bus.subjects.cmd_resume, cmd, msg_id=str(cmd.run_id))
    return await run_events(world, thread, cmd.run_id)


async def still_asking(world: World, thread: uuid.UUID) -> str | None:
    snapshot = await stage_graph(world.infra, {}).aget_state(thread_config(str(thread)))
    pending = [i.value for task in snapshot.tasks for i in task.interrupts]
    return pending[0]["interrupt_type"] if pending else None


@pytest.mark.parametrize("name", list(QUESTIONS))
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
async def test_any_answer_ends_its_run_in_one_terminal_event_and_frees_the_thread(world, name, data):
    held = await waiting(world, name)
    answer = data.draw(answers(held.question, world), label="answer")
    turn = await answer_claimed(world, held.thread_id, answer, held)  # exactly one terminal event, the last
    async with tenant_tx(world.infra.db, held.tenant_id, held.user_id) as conn:
        assert await conversations.running_run(conn, held.thread_id, held.user_id) is None
    terminal = turn.terminal
    event(f"{turn.kind} {terminal.get('code') or terminal.get('interrupt_type') or ''}".strip())
    if turn.kind == "error":
        assert terminal["code"] in ("invalid_answer", "invalid_request"), terminal
        assert not EXCEPTION_TEXT.search(terminal["message"]), terminal["message"]
        # Refused: the question is still open, the checkpoint where it was.
        assert await still_asking(world, held.thread_id) == held.question["interrupt_type"]
    else:
        assert turn.kind in ("response", "interrupt"), terminal
        del WAITING[name]  # the answer was taken: the next example gets a new question


async def test_two_documents_sent_as_a_json_string_are_compared(world):
    """Issue 29's crash: Agent Chat UI's edit form sends the compare choice as one string."""
    thread = uuid.uuid4()
    asked = await ask_doc_choice_without_options(world, thread)
    assert asked.terminal["interrupt_type"] == "doc_choice" and asked.terminal["options"] is None
    both = json.dumps([world.ids["bn23"], world.ids["bn24"]])
    done = await answer_claimed(world, thread, ResumeValue(type="doc_choice", value=both))
    assert done.kind == "response" and done.terminal["action"] == "compare", done.terminal
    assert done.cited <= {world.ids["bn23"], world.ids["bn24"]} and done.cited


async def test_an_answer_refused_by_its_node_leaves_the_question_open_for_the_next(world):
    """One document for a comparison fits the question but not the node: refused, and the checkpoint
    does not keep it, so the next answer is the one the node takes."""
    thread = uuid.uuid4()
    await ask_doc_choice_without_options(world, thread)
    refused = await answer_claimed(world, thread, ResumeValue(type="doc_choice", value=[world.ids["bn23"]]))
    assert refused.kind == "error" and refused.terminal["code"] == "invalid_request", refused.terminal
    assert "compare needs 2 document(s)" in refused.terminal["message"]
    assert await still_asking(world, thread) == "doc_choice"
    again = await answer_claimed(
        world, thread, ResumeValue(type="doc_choice", value=f"{world.ids['bn23']},{world.ids['bn24']}")
    )
    assert again.kind == "response" and again.terminal["action"] == "compare", again.terminal


async def test_a_refused_second_answer_keeps_the_first(world):
    """validate_inputs asks for the audit target, then for the source text: a source refused by the
    node keeps the target answered, and the next source is audited against it."""
    thread = uuid.uuid4()
    first = await say(world, thread, "Audit this", action="audit")
    assert first.terminal["interrupt_type"] == "doc_choice", first.terminal
    second = await answer_claimed(world, thread, ResumeValue(type="doc_choice", value=[world.ids["retention"]]))
    assert second.terminal["interrupt_type"] == "text_input", second.terminal
    refused = await answer_claimed(world, thread, ResumeValue(type="text_input", value="hello"))
    assert refused.kind == "error" and "requirement sentence" in refused.terminal["message"], refused.terminal
    assert await still_asking(world, thread) == "text_input"
    done = await answer_claimed(
        world, thread, ResumeValue(type="text_input", value="CCTV footage must be deleted after 30 days.")
    )
    assert done.kind == "response", done.terminal
    assert {f["target_doc_id"] for f in done.terminal["findings"]["findings"]} <= {world.ids["retention"]}
