"""The profile shapes answers (docs/architecture.md §7.5): two users with different onboarding answers
ask the same question of the same document and get the rules that concern them first."""

from __future__ import annotations

import math
import uuid

import pytest

from shared.db import users
from shared.db.pool import tenant_tx
from shared.db.tenants import ensure_tenant
from tests.integration.conftest import running
from tests.integration.helpers import ingested, read_events, turn_finished
from tests.integration.test_turn import services, start_turn

pytestmark = pytest.mark.integration

REGIONAL_RULES = """# Regional record-keeping rules

Record retention differs by country and by sector.

In Malaysia, banks must keep customer transaction records for seven years after the account is closed.

In Singapore, insurers must keep customer policy records for five years after the policy ends.

Firms elsewhere must keep customer records for as long as the business relationship lasts.
"""
PROFILES = {
    "banker": {"company": "Acme Bank", "location": "Malaysia", "industry": "Banking", "description": None},
    "insurer": {"company": "Lion Assurance", "location": "Singapore", "industry": "Insurance", "description": None},
}


def position(text: str, word: str) -> float:
    found = text.find(word)
    return math.inf if found < 0 else found


async def ask(infra, tenant_id, user_id, doc_id) -> dict:
    thread_id = uuid.uuid4()
    cmd = await start_turn(
        infra,
        tenant_id,
        user_id,
        thread_id,
        "How long must customer records be kept?",
        action="inquire",
        tagged_doc_ids=[doc_id],
    )
    events = await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(cmd.run_id))
    return events[-1]


async def test_two_profiles_get_the_rules_that_concern_them_first(infra, embedder, tmp_path):
    tenant_id = uuid.uuid4()
    for name, profile in PROFILES.items():
        await ensure_tenant(infra.settings.admin_url, tenant_id, "Profiles", name)
        async with tenant_tx(infra.db, tenant_id, name) as conn:
            await users.save_onboarding(conn, name, **profile)
    path = tmp_path / "regional-rules.md"
    path.write_text(REGIONAL_RULES)
    async with running(*services(infra)):
        doc = await ingested(infra, tenant_id, "banker", path, title="Regional Rules", visibility="tenant")
        banker = await ask(infra, tenant_id, "banker", doc.document_id)
        insurer = await ask(infra, tenant_id, "insurer", doc.document_id)

    assert banker["type"] == insurer["type"] == "response", (banker, insurer)
    for_banker, for_insurer = banker["response"], insurer["response"]
    assert for_banker != for_insurer
    # The same document, the same question: the rules naming each user's country come first, and the
    # answer says for whom it was ranked.
    assert position(for_banker, "Malaysia") < position(for_banker, "Singapore"), for_banker
    assert position(for_insurer, "Singapore") < position(for_insurer, "Malaysia"), for_insurer
    assert "Ranked for Acme Bank: rules that name Malaysia or Banking come first." in for_banker
    assert "Ranked for Lion Assurance: rules that name Singapore or Insurance come first." in for_insurer
