"""The agents' live ticket feed (`GET /v1/tickets/events`) on real NATS, Postgres and workers.

The gateway runs under uvicorn on a loopback port (an in-process ASGI transport would buffer an
endless stream), customers escalate through the widget API, and each tenant's agents must see
their own tickets arrive and leave — and never another tenant's.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from contextlib import asynccontextmanager

import httpx
import pytest
import uvicorn
from httpx_sse import aconnect_sse

from services.actions import worker as action_worker
from services.gateway.app import create_app
from services.resolver import worker as resolver_worker
from services.retrieval import worker as retrieval_worker
from shared.auth.tokens import mint_token
from shared.db.tenants import ensure_tenant
from shared.runtime.embedded import free_port
from shared.runtime.service import Infra
from tests.integration.conftest import running

pytestmark = pytest.mark.integration
SECRET = "feed-secret-0123456789abcdef0123456789ab"
SHOP = "https://shop.example"
# Neither tenant has any knowledge, so every question is escalated to a human.
QUESTION = "Can I change the delivery address after ordering?"


@asynccontextmanager
async def serving(app):
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 15)


@pytest.fixture
async def desk(settings, infra, embedder):
    """The gateway on a port, the support workers, and two tenants that both allow SHOP."""
    configured = settings.model_copy(update={"secret_key": SECRET})
    app = create_app(configured)
    workers = Infra(settings=configured, bus=infra.bus, db=infra.db)
    services = (
        lambda s: retrieval_worker.serve(workers, s),
        lambda s: resolver_worker.serve(workers, s),
        lambda s: action_worker.serve_action(workers, s, "inquire"),
    )
    operator_tenant = uuid.uuid4()
    await ensure_tenant(settings.admin_url, operator_tenant, "Operator")
    operator = mint_token(SECRET, tenant_id=operator_tenant, sub="ops", role="operator")
    async with serving(app) as url, running(*services):
        tenants = {}
        async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {operator}"}) as ops:
            for name in ("a", "b"):
                created = await ops.post("/v1/admin/tenants", json={"name": f"Shop {name}", "allowed_domains": [SHOP]})
                assert created.status_code == 201, created.text
                tenants[name] = uuid.UUID(created.json()["id"])
        yield {"url": url, **tenants}


def agent_token(tenant_id: uuid.UUID, name: str) -> str:
    return mint_token(SECRET, tenant_id=tenant_id, sub=name, role="agent")


class Feed:
    """An agent's open feed, read in the background; `events` grows as they arrive."""

    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url, token
        self.events: list[dict] = []
        self.task: asyncio.Task | None = None

    async def _read(self) -> None:
        headers = {"Authorization": f"Bearer {self.token}"}
        async with (
            httpx.AsyncClient(base_url=self.url, headers=headers, timeout=None) as client,
            aconnect_sse(client, "GET", "/v1/tickets/events") as source,
        ):
            source.response.raise_for_status()
            async for sse in source.aiter_sse():
                if sse.data:
                    self.events.append({"event": sse.event, "id": sse.id, **json.loads(sse.data)})

    async def __aenter__(self) -> Feed:
        self.task = asyncio.create_task(self._read())
        await self.wait_for(lambda e: e["event"] == "snapshot")
        return self

    async def __aexit__(self, *_) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)

    async def wait_for(self, predicate, timeout: float = 90) -> dict:
        async with asyncio.timeout(timeout):
            while True:
                if self.task.done():
                    self.task.result()
                    raise AssertionError(f"the feed ended: {self.events}")
                for event in self.events:
                    if predicate(event):
                        return event
                await asyncio.sleep(0.05)

    @property
    def snapshot_ids(self) -> list[str]:
        return [t["id"] for t in self.events[0]["tickets"]]

    def ticket_events(self) -> list[dict]:
        return [e["ticket"] for e in self.events if e["event"] == "ticket"]


def waiting(ticket_id: str, status: str):
    return lambda e: e["event"] == "ticket" and e["ticket"]["id"] == ticket_id and e["ticket"]["status"] == status


async def escalate(url: str, tenant_id: uuid.UUID) -> tuple[dict, dict]:
    """A customer opens the widget and asks something nobody documented; returns the session and
    the escalation event."""
    async with httpx.AsyncClient(base_url=url, headers={"Origin": SHOP}, timeout=120) as client:
        session = (await client.post("/v1/widget/init", json={"tenant_id": str(tenant_id)})).json()
        headers = {"Authorization": f"Bearer {session['token']}"}
        async with aconnect_sse(client, "POST", "/v1/widget/chat", json={"message": QUESTION}, headers=headers) as src:
            events = [sse async for sse in src.aiter_sse() if sse.data]
    assert events[-1].event == "escalation", [(e.event, e.data) for e in events]
    return session, {"id": events[-1].id, **json.loads(events[-1].data)}


async def test_agents_see_their_tenants_escalations_arrive_and_leave_live(desk):
    url = desk["url"]
    async with Feed(url, agent_token(desk["a"], "ann")) as ann, Feed(url, agent_token(desk["b"], "bob")) as bob:
        session, escalation = await escalate(url, desk["a"])
        ticket_id = session["ticket_id"]
        arrived = (await ann.wait_for(waiting(ticket_id, "pending_human")))["ticket"]
        assert arrived["question"] == QUESTION and arrived["number"] == session["ticket_number"]
        assert arrived["ai_confidence"] < 0.7  # the grade that sent it to a human, shown to agents

        # A late agent gets the waiting ticket in its snapshot; the other tenant's does not.
        async with Feed(url, agent_token(desk["a"], "amy")) as amy, Feed(url, agent_token(desk["b"], "ben")) as ben:
            assert ticket_id in amy.snapshot_ids
            assert ticket_id not in ben.snapshot_ids

        # The customer keeps the widget open; the agent answers; both see it without asking again.
        async def customer_stream() -> list[dict]:
            headers = {"Authorization": f"Bearer {session['token']}", "Last-Event-ID": escalation["id"]}
            async with (
                httpx.AsyncClient(base_url=url, headers=headers, timeout=120) as client,
                aconnect_sse(client, "GET", "/v1/widget/events") as source,
            ):
                return [{"event": s.event, **json.loads(s.data)} async for s in source.aiter_sse() if s.data]

        customer = asyncio.create_task(customer_stream())
        await asyncio.sleep(1.5)  # past the replay's idle check: the stream is waiting, not ending
        assert not customer.done()
        headers = {"Authorization": f"Bearer {agent_token(desk['a'], 'ann')}"}
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client:
            resolved = await client.post(f"/v1/tickets/{ticket_id}/resolve", json={"answer": "Yes, until it ships."})
            assert resolved.status_code == 202, resolved.text
            again = await client.post(f"/v1/tickets/{ticket_id}/resolve", json={"answer": "No."})
            assert (again.status_code, again.json()["error"]["code"]) == (409, "not_waiting")
        await ann.wait_for(waiting(ticket_id, "resolved"))
        live = await asyncio.wait_for(customer, 90)
        assert live[-1]["event"] == "response" and live[-1]["answered_by"] == "human", live
        assert live[-1]["response"] == "Yes, until it ships."

        # Meanwhile the other tenant's agent heard nothing at all.
        assert bob.ticket_events() == []
        assert [e["status"] for e in ann.ticket_events() if e["id"] == ticket_id] == ["pending_human", "resolved"]


async def test_only_agents_and_admins_may_follow_the_queue(desk):
    url = desk["url"]
    customer_token = mint_token(SECRET, tenant_id=desk["a"], sub="anon_x", role="customer", ticket_id=uuid.uuid4())
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        missing = await client.get("/v1/tickets/events")
        for role_token in (customer_token, mint_token(SECRET, tenant_id=desk["a"], sub="u1")):
            refused = await client.get("/v1/tickets/events", headers={"Authorization": f"Bearer {role_token}"})
            assert (refused.status_code, refused.json()["error"]["code"]) == (403, "forbidden")
    assert missing.status_code == 401
    admin = mint_token(SECRET, tenant_id=desk["a"], sub="boss", role="admin")
    async with Feed(url, admin) as feed:
        assert feed.events[0]["tickets"] == []
