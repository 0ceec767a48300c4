"""One small corpus and helpers for the resolution-stage flows (tests/integration/test_resolution_flows.py).

The corpus is ingested once per module by a real ingest worker; every flow then runs on its
own thread through the real resolver and action workers, over JetStream and the Postgres
checkpointer. Messages are built like the frontend builds them: TipTap JSON with mention nodes
and the plain message text in which a mention reads "@Label".
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shared.bus.publish import publish
from shared.contracts import ResumeCommand, ResumeValue, parse_thread_event
from shared.contracts.events import StatusEvent
from shared.db.pool import tenant_tx
from shared.runtime.service import Infra
from shared.text.labels import document_label
from tests.conftest import EXAMPLES
from tests.integration.helpers import read_events, turn_finished
from tests.integration.test_turn import start_turn

CAPITAL_2023 = """# Bank Negara Capital Regulation 2023

Banks must maintain a minimum Common Equity Tier 1 capital ratio of 4.5 percent at all times.

Banks must hold a capital conservation buffer of 2.5 percent of risk-weighted assets.

Banks shall report their capital adequacy ratios to the central bank every quarter.
"""
CAPITAL_2024 = """# Bank Negara Capital Regulation 2024

Banks must maintain a minimum Common Equity Tier 1 capital ratio of 6 percent at all times.

Banks must hold a capital conservation buffer of 3 percent of risk-weighted assets.

Banks shall report their capital adequacy ratios to the central bank every month.
"""
LENDING_POLICY = """# Northwind Lending Policy

Northwind maintains a Common Equity Tier 1 capital ratio of at least 4.5 percent.

Northwind holds a capital conservation buffer of 2.5 percent of risk-weighted assets.

The finance team reports capital adequacy ratios to the central bank every quarter.
"""
TRAVEL_POLICY = """# Northwind Travel Policy

Employees must book economy class for flights shorter than six hours.

Hotel costs are reimbursed up to 150 euros per night in capital cities.

Expense claims must be submitted within thirty days of returning from a trip, with receipts attached.
"""
MUSCLE_GUIDE = """# Muscle Building Guide

Progressive overload is the key to muscle growth: add weight or repetitions every week.

Eat about 1.6 grams of protein per kilogram of body weight each day to support muscle repair.

Train each muscle group twice a week and sleep at least seven hours so the muscles can recover.
"""
ATOMIC_HABITS = """# Atomic Habits

Small habits compound over time: getting one percent better every day adds up to remarkable results.

Make a good habit obvious, attractive, easy and satisfying; make a bad habit invisible and difficult.

Habit stacking links a new habit to an existing one, such as meditating right after pouring morning coffee.
"""

# key → (title, version, doc_type, text or example file)
CORPUS: dict[str, tuple[str, str, str, str | Path]] = {
    "bn23": ("Bank Negara Capital Regulation", "2023", "regulatory_source", CAPITAL_2023),
    "bn24": ("Bank Negara Capital Regulation", "2024", "regulatory_source", CAPITAL_2024),
    "lending": ("Northwind Lending Policy", "1", "company_policy", LENDING_POLICY),
    "retention": ("Retention Policy", "1", "company_policy", EXAMPLES / "texts" / "data-retention-policy.md"),
    "travel": ("Travel Policy", "1", "company_policy", TRAVEL_POLICY),
    "storage": (
        "Storage Limitation Regulation",
        "1",
        "regulatory_source",
        EXAMPLES / "texts" / "storage-limitation-regulation.md",
    ),
    "muscle": ("Muscle Building Guide", "1", "knowledge_base", MUSCLE_GUIDE),
    "habits": ("Atomic Habits", "1", "knowledge_base", ATOMIC_HABITS),
}


def display(key: str) -> str:
    title, version, _, _ = CORPUS[key]
    return document_label(title, version)


@dataclass
class World:
    infra: Infra
    tenant_id: uuid.UUID
    user_id: str
    ids: dict[str, str] = field(default_factory=dict)  # corpus key → document id

    def key_of(self, doc_id: str) -> str:
        return next(k for k, v in self.ids.items() if v == doc_id)

    def doc(self, key: str) -> dict[str, Any]:
        """A TipTap document mention, labelled with the title as the editor's suggestion list shows it."""
        title, version, _, _ = CORPUS[key]
        label = title if sum(t == title for t, *_ in CORPUS.values()) == 1 else f"{title} {version}"
        return mention("document", self.ids[key], label)


def mention(category: str, ident: str, label: str) -> dict[str, Any]:
    return {"type": "mention", "attrs": {"id": ident, "label": label, "category": category}}


def action(name: str) -> dict[str, Any]:
    return mention("action", name, name.capitalize())


def compose(*parts: str | dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(message text, TipTap JSON) for a paragraph of text pieces and mention nodes."""
    content = [{"type": "text", "text": p} if isinstance(p, str) else p for p in parts]
    text = "".join(p if isinstance(p, str) else "@" + p["attrs"]["label"] for p in parts)
    return " ".join(text.split()), {"type": "doc", "content": [{"type": "paragraph", "content": content}]}


@dataclass
class Turn:
    """The events of one run (a chat turn or a resume) on a thread, in stream order."""

    thread_id: uuid.UUID
    run_id: uuid.UUID
    events: list[dict[str, Any]]

    @property
    def terminal(self) -> dict[str, Any]:
        return self.events[-1]

    @property
    def kind(self) -> str:
        return self.terminal["type"]

    @property
    def nodes(self) -> list[str]:
        """Status nodes in order, a doc_resolver status that carries `docs_found` written as "docs_found"."""
        return ["docs_found" if e.get("docs_found") else e["node"] for e in self.events if e["type"] == "status"]

    @property
    def docs_found(self) -> list[str]:
        found = [e for e in self.events if e["type"] == "status" and e.get("docs_found")]
        assert len(found) <= 1, found
        return [d["id"] for d in found[0]["docs_found"]] if found else []

    @property
    def cited(self) -> set[str]:
        return {c["document_id"] for c in self.terminal.get("citations", []) if c.get("document_id")}


def contract_checked(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every event validates against the SSE contract (architecture §10.1); status `docs_found` comes
    from doc_resolver only."""
    for event in events:
        parsed = parse_thread_event(json.dumps({k: v for k, v in event.items() if not k.startswith("_")}))
        if isinstance(parsed, StatusEvent) and parsed.docs_found is not None:
            assert parsed.node == "doc_resolver" and parsed.message == "Finding documents..."
            assert all(ref.title for ref in parsed.docs_found)
    terminals = [e for e in events if e["type"] in ("response", "interrupt", "escalation", "error")]
    assert len(terminals) == 1 and terminals[0] is events[-1], [e["type"] for e in events]
    return events


async def run_events(world: World, thread_id: uuid.UUID, run_id: uuid.UUID) -> Turn:
    events = await read_events(
        world.infra, world.infra.bus.subjects.evt_thread(thread_id), until=turn_finished(run_id), timeout=90
    )
    mine = [e for e in events if e["run_id"] == str(run_id)]
    return Turn(thread_id, run_id, contract_checked(mine))


async def say(world: World, thread_id: uuid.UUID, *parts: str | dict[str, Any], **fields) -> Turn:
    """One chat turn: the message and its TipTap JSON, as the gateway would publish them."""
    message, tiptap = compose(*parts)
    if all(isinstance(p, str) for p in parts):
        tiptap = None  # plain text, as an API client without an editor sends it
    cmd = await start_turn(
        world.infra, world.tenant_id, world.user_id, thread_id, message, tiptap_json=tiptap, **fields
    )
    return await run_events(world, thread_id, cmd.run_id)


async def answer(world: World, thread_id: uuid.UUID, kind: str, value: Any = None) -> Turn:
    """Answer the thread's PalAssist question over `pp.cmd.resume`."""
    cmd = ResumeCommand(
        tenant_id=world.tenant_id,
        user_id=world.user_id,
        thread_id=thread_id,
        resume_value=ResumeValue(type=kind, value=value),
    )
    await publish(world.infra.bus, world.infra.bus.subjects.cmd_resume, cmd, msg_id=str(cmd.run_id))
    return await run_events(world, thread_id, cmd.run_id)


async def model_tasks(world: World, run_id: uuid.UUID) -> list[str]:
    """The model tasks a run paid for (the usage ledger)."""
    async with tenant_tx(world.infra.db, world.tenant_id, world.user_id) as conn:
        rows = await (
            await conn.execute("SELECT task FROM usage WHERE run_id = %s ORDER BY id", (str(run_id),))
        ).fetchall()
    return [r["task"] for r in rows]
