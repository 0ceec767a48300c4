"""The ticket feed's payloads and the per-origin validation the admin page relies on."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from shared.bus.subjects import Subjects
from shared.contracts.api import TenantDomains, TicketOut
from shared.contracts.tickets import TicketChanged, TicketSnapshot


def ticket(**overrides) -> TicketOut:
    now = datetime.now(UTC)
    fields = {
        "id": uuid.uuid4(),
        "number": 7,
        "customer_sub": "anon_x",
        "origin": "https://shop.example",
        "status": "pending_human",
        "question": "Can I pay by invoice?",
        "human_answer": None,
        "resolved_by": None,
        "created_at": now,
        "updated_at": now,
    }
    return TicketOut(**fields | overrides)


def test_a_bad_origin_is_reported_with_its_row_index():
    with pytest.raises(ValidationError) as caught:
        TenantDomains(allowed_domains=["https://ok.example", "ok.example/path", "http://localhost:3000", "ftp://x"])
    assert [e["loc"] for e in caught.value.errors()] == [("allowed_domains", 1), ("allowed_domains", 3)]
    assert TenantDomains(allowed_domains=["HTTPS://Shop.Example"]).allowed_domains == ["https://shop.example"]


def test_feed_events_carry_whole_tickets_and_reject_unknown_fields():
    changed = TicketChanged(ticket=ticket(ai_answer="Maybe.", ai_confidence=0.2))
    assert changed.model_dump(mode="json")["type"] == "ticket"
    assert changed.ticket.ai_confidence == 0.2
    assert TicketSnapshot(tickets=[ticket(), ticket()]).type == "snapshot"
    with pytest.raises(ValidationError):
        TicketChanged.model_validate({"type": "ticket", "ticket": ticket().model_dump(), "tenant": "x"})
    with pytest.raises(ValidationError):
        ticket(status="closed")


def test_each_tenant_has_its_own_ticket_subject():
    tenant = uuid.uuid4()
    assert Subjects("pp").evt_tickets(tenant) == f"pp.evt.tickets.{tenant}"
    assert Subjects("pp").evt_tickets(tenant).startswith(Subjects("pp").evt_all[:-1])
