"""Support widget (architecture §8) end to end on the gateway (in-process ASGI), real NATS, Postgres and workers.

A tenant is created through the admin API with one allowed origin, its knowledge uploaded with
`visibility=tenant`; customers come in through the origin-checked handshake and chat over SSE;
low-confidence answers escalate to a human agent whose answer resumes the graph.
"""

from __future__ import annotations

import json
import uuid
from contextlib import asynccontextmanager

import httpx
import pytest

from services.actions import worker as action_worker
from services.gateway.app import create_app
from services.ingest import worker as ingest_worker
from services.resolver import worker as resolver_worker
from services.retrieval import worker as retrieval_worker
from shared.auth.tokens import mint_token
from shared.db.tenants import ensure_tenant
from shared.runtime.service import Infra
from tests.integration.conftest import running
from tests.integration.helpers import ingest_finished, read_events

pytestmark = pytest.mark.integration
SECRET = "widget-secret-0123456789abcdef0123456789"
SHOP = "https://shop.example"
ARTICLES = {
    "create-docx.txt": "How to create a DOCX file. Open the editor, choose New and then Document, and save the file "
    "with the .docx extension. A new DOCX file is stored in your Documents folder.",
    "export-pdf.txt": "How to export a DOCX file to PDF. Open the DOCX file, choose File, then Export, then PDF, and "
    "pick where to save the PDF. Exported PDF files keep the fonts and images of the DOCX file.",
    "reset-password.txt": "How to reset your password. Choose Forgot password on the sign-in page and follow the "
    "emailed link. The password reset link is valid for 24 hours.",
    "spreadsheets.txt": "Uploading spreadsheets. You can upload a spreadsheet in XLSX or CSV format from the Files "
    "page. A spreadsheet can be at most 25 MB in size.",
}


def sse_events(response: httpx.Response) -> list[dict]:
    """The JSON events of a complete SSE body, with their `type` (the SSE event name) and `_id`
    (the PP_EVENTS sequence)."""
    events, data, event_id, event_type = [], [], None, "message"
    for line in response.text.splitlines() + [""]:
        if line.startswith("data:"):
            data.append(line[5:].strip())
        elif line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("event:"):
            event_type = line[6:].strip()
        elif not line and data:
            events.append({**json.loads("\n".join(data)), "type": event_type, "_id": event_id})
            data, event_id, event_type = [], None, "message"
    return events


@asynccontextmanager
async def client_for(app, token: str | None = None, **headers):
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://gw", headers={**auth, **headers}, timeout=120
    ) as client:
        yield client


@pytest.fixture
async def world(settings, infra, embedder):
    """Gateway + workers; tenant A (created by the admin API) with knowledge, tenant B with its own."""
    configured = settings.model_copy(update={"secret_key": SECRET})
    app = create_app(configured)
    workers = Infra(settings=configured, bus=infra.bus, db=infra.db)
    services = (
        lambda s: ingest_worker.serve(workers, s),
        lambda s: retrieval_worker.serve(workers, s),
        lambda s: resolver_worker.serve(workers, s),
        lambda s: action_worker.serve_action(workers, s, "inquire"),
    )
    operator_tenant = uuid.uuid4()
    await ensure_tenant(settings.admin_url, operator_tenant, "Operator")
    operator = mint_token(SECRET, tenant_id=operator_tenant, sub="ops", role="operator")
    async with app.router.lifespan_context(app), running(*services):
        async with client_for(app, operator) as ops:
            created = await ops.post("/v1/admin/tenants", json={"name": "Shop A", "allowed_domains": [SHOP]})
            assert created.status_code == 201, created.text
            tenant_a = uuid.UUID(created.json()["id"])
            created_b = await ops.post("/v1/admin/tenants", json={"name": "Shop B", "allowed_domains": [SHOP]})
            tenant_b = uuid.UUID(created_b.json()["id"])
        world = {"app": app, "infra": infra, "a": tenant_a, "b": tenant_b}
        for name, text in ARTICLES.items():
            await upload(world, tenant_a, name, text)
        await upload(world, tenant_b, "refunds.txt", "Refund policy. Our refund window is 90 days for every order.")
        yield world


async def upload(world, tenant_id: uuid.UUID, name: str, text: str) -> str:
    staff = mint_token(SECRET, tenant_id=tenant_id, sub="kb-editor")
    async with client_for(world["app"], staff) as client:
        response = await client.post(
            "/v1/documents",
            files={"file": (name, text.encode(), "text/plain")},
            data={"title": name, "doc_type": "knowledge_base", "visibility": "tenant"},
        )
    assert response.status_code == 202, response.text
    document_id = response.json()["id"]
    infra = world["infra"]
    events = await read_events(infra, infra.bus.subjects.evt_ingest(document_id), until=ingest_finished)
    assert events[-1]["status"] == "ready", events[-1]
    return document_id


async def session(world, tenant_id: uuid.UUID, origin: str = SHOP) -> dict:
    async with client_for(world["app"], Origin=origin) as client:
        response = await client.post("/v1/widget/init", json={"tenant_id": str(tenant_id)})
    assert response.status_code == 201, response.text
    return response.json()


async def ask(world, token: str, message: str) -> list[dict]:
    async with client_for(world["app"], token) as client:
        response = await client.post("/v1/widget/chat", json={"message": message})
    assert response.status_code == 200, response.text
    return sse_events(response)


async def test_handshake_checks_the_origin_and_tokens_bind_one_ticket(world):
    app, tenant_a = world["app"], world["a"]
    async with client_for(app, Origin="https://evil.example") as client:
        foreign = await client.post("/v1/widget/init", json={"tenant_id": str(tenant_a)})
    async with client_for(app) as client:
        missing = await client.post("/v1/widget/init", json={"tenant_id": str(tenant_a)})
    async with client_for(app, Origin=SHOP) as client:
        unknown = await client.post("/v1/widget/init", json={"tenant_id": str(uuid.uuid4())})
        prefix = await client.post(
            "/v1/widget/init", json={"tenant_id": str(tenant_a)}, headers={"Origin": SHOP + ".evil.example"}
        )
    assert (foreign.status_code, foreign.json()["error"]["code"]) == (403, "origin_not_allowed")
    assert (missing.status_code, missing.json()["error"]["code"]) == (403, "origin_required")
    assert unknown.status_code == 403 and prefix.status_code == 403

    mine = await session(world, tenant_a)
    claims = mine["token"]
    assert mine["ticket_number"] >= 1
    head, body, signature = claims.split(".")
    tampered = f"{head}.{body}.{signature[:-2]}{'AA' if signature[-2:] != 'AA' else 'BB'}"
    expired = mint_token(SECRET, tenant_id=tenant_a, sub="anon_x", role="customer", ttl_s=-120, ticket_id=uuid.uuid4())
    for bad in (tampered, expired, None):
        async with client_for(app, bad) as client:
            assert (await client.get("/v1/widget/history")).status_code == 401
    async with client_for(app) as client:
        by_query = await client.get("/v1/widget/history", params={"token": claims})
    assert by_query.status_code == 200 and by_query.json()["thread_id"] == mine["ticket_id"]

    # A customer token reaches no workspace endpoint, and no ticket but its own.
    other = await session(world, tenant_a)
    stolen = mint_token(
        SECRET, tenant_id=tenant_a, sub="anon_intruder", role="customer", ticket_id=uuid.UUID(other["ticket_id"])
    )
    async with client_for(app, stolen) as client:
        assert (await client.get("/v1/widget/history")).status_code == 404
    async with client_for(app, claims) as client:
        assert (await client.get("/v1/documents")).status_code == 403
        assert (await client.get(f"/v1/chat/history/{mine['ticket_id']}")).status_code == 403
        assert (await client.get("/v1/tickets")).status_code == 403
    workspace_user = mint_token(SECRET, tenant_id=tenant_a, sub="staff")
    async with client_for(app, workspace_user) as client:
        assert (await client.get("/v1/widget/history")).status_code == 403


async def test_follow_up_is_made_standalone_and_answered_from_tenant_knowledge(world):
    customer = await session(world, world["a"])
    first = await ask(world, customer["token"], "How do I create a DOCX file?")
    assert first[-1]["type"] == "response", first[-1]
    assert "New and then Document" in first[-1]["response"] and first[-1]["answered_by"] == "model", first[-1]
    assert any(e["type"] == "token" for e in first)
    follow = await ask(world, customer["token"], "How do I export it to PDF?")
    answer = follow[-1]
    assert answer["type"] == "response", answer
    assert "File, then Export, then PDF" in answer["response"]
    assert [e["node"] for e in follow if e["type"] == "status"][:2] == ["check_cache", "contextualize"]
    async with client_for(world["app"], customer["token"]) as client:
        history = (await client.get("/v1/widget/history")).json()["messages"]
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]

    other = await session(world, world["a"])
    await ask(world, other["token"], "Can I upload a spreadsheet?")
    size = await ask(world, other["token"], "How big can it be?")
    assert "at most 25 MB" in size[-1]["response"], size[-1]


async def test_paraphrased_repeat_hits_the_cache_until_knowledge_changes(world):
    first = await session(world, world["a"])
    original = await ask(world, first["token"], "How do I reset my password?")
    assert original[-1].get("answered_by") == "model", original
    second = await session(world, world["a"])
    repeat = await ask(world, second["token"], "How can I reset my password?")
    assert repeat[-1]["answered_by"] == "cache" and repeat[-1]["engine"] == "answer-cache"
    assert repeat[-1]["response"] == original[-1]["response"]
    assert not any(e["type"] == "status" and e["node"] == "inquire" for e in repeat)

    await upload(world, world["a"], "security.txt", "Accounts are locked after five failed sign-in attempts.")
    third = await session(world, world["a"])
    after_change = await ask(world, third["token"], "How can I reset my password?")
    assert after_change[-1]["answered_by"] == "model"  # the cached answer predates the new knowledge


async def test_a_question_about_what_the_knowledge_never_mentions_escalates(world):
    """The password article is close to the question and shares its words, but nothing the tenant
    published mentions a fingerprint: the answer is graded unsupported and a human takes it."""
    customer = await session(world, world["a"])
    events = await ask(world, customer["token"], "How do I reset my password with a fingerprint?")
    assert events[-1]["type"] == "escalation", events[-1]
    assert "Nothing in your documents" not in json.dumps(events)


async def test_a_quantity_the_knowledge_never_states_escalates(world):
    """The export article says exported PDFs keep the fonts, and nothing says how many: the answer is
    graded unsupported rather than quoting a sentence without the number asked."""
    customer = await session(world, world["a"])
    events = await ask(world, customer["token"], "How many fonts can an exported PDF file keep?")
    assert events[-1]["type"] == "escalation", events[-1]


async def test_unsure_answer_escalates_and_the_agents_answer_reaches_the_customer(world):
    app, tenant_a = world["app"], world["a"]
    customer = await session(world, tenant_a)
    # Tenant B's knowledge answers this; tenant A's widget must not.
    events = await ask(world, customer["token"], "What is the refund window?")
    escalation = events[-1]
    assert escalation["type"] == "escalation", escalation
    assert escalation["ticket_id"] == customer["ticket_id"]
    assert f"Ticket #{customer['ticket_number']}" in escalation["message"]
    assert "90 days" not in json.dumps(events)
    async with client_for(app, customer["token"]) as client:
        waiting = await client.post("/v1/widget/chat", json={"message": "Hello?"})
    assert waiting.status_code == 409 and waiting.json()["error"]["code"] == "waiting_for_agent"

    agent = mint_token(SECRET, tenant_id=tenant_a, sub="agent-ann", role="agent")
    async with client_for(app, agent) as client:
        queue = (await client.get("/v1/tickets", params={"status": "pending_human"})).json()["items"]
        assert [t["id"] for t in queue] == [customer["ticket_id"]]
        assert queue[0]["question"] == "What is the refund window?"
        detail = (await client.get(f"/v1/tickets/{customer['ticket_id']}")).json()
        assert detail["messages"][-1]["metadata"]["kind"] == "escalation"
        resolved = await client.post(
            f"/v1/tickets/{customer['ticket_id']}/resolve", json={"answer": "Refunds are accepted within 30 days."}
        )
        assert resolved.status_code == 202 and resolved.json()["status"] == "resolved"
        again = await client.post(f"/v1/tickets/{customer['ticket_id']}/resolve", json={"answer": "x"})
        assert again.status_code == 409
    other_agent = mint_token(SECRET, tenant_id=world["b"], sub="agent-bob", role="agent")
    async with client_for(app, other_agent) as client:
        assert (await client.get(f"/v1/tickets/{customer['ticket_id']}")).status_code == 404

    # The customer reconnects after the escalation event and receives the human answer.
    async with client_for(app, customer["token"]) as client:
        replay = sse_events(await client.get("/v1/widget/events", headers={"Last-Event-ID": escalation["_id"]}))
        history = (await client.get("/v1/widget/history")).json()["messages"]
    answer = replay[-1]
    assert answer["type"] == "response" and answer["answered_by"] == "human", answer
    assert answer["response"] == "Refunds are accepted within 30 days."
    assert history[-1]["content"] == "Refunds are accepted within 30 days."
    assert history[-1]["metadata"]["answered_by"] == "human"

    # The human answer seeds the cache for the next customer who asks the same.
    later = await session(world, tenant_a)
    cached = await ask(world, later["token"], "What is the refund window?")
    assert cached[-1]["answered_by"] == "cache" and "30 days" in cached[-1]["response"]


FAQ_MD = """# Help centre

## Billing

### Which payment methods do you accept?

We accept Visa, Mastercard and PayPal. Invoices are available for annual plans.

### How do I close my account?

1. Write to support@example.com from the account's address
2. Confirm the request in the email we send back

We close it within five business days.

## Orders

### Can I change the delivery address?

If the order has not shipped yet, reply to your order confirmation with the new address.
"""


async def test_a_customer_is_answered_from_a_faq_article(world):
    """A help centre's FAQ in Markdown: each question and its answer are one passage
    (services/ingest/faq.py), so the customer's own wording finds its topic and the answer is final."""
    await upload(world, world["b"], "faq.md", FAQ_MD)
    customer = await session(world, world["b"])
    paid = await ask(world, customer["token"], "What payment methods do you take?")
    assert paid[-1]["type"] == "response" and "Visa, Mastercard and PayPal" in paid[-1]["response"], paid[-1]
    closing = await ask(world, customer["token"], "How do I close my account?")
    said = closing[-1]["response"]
    assert closing[-1]["type"] == "response" and said.startswith("1. Write to support@example.com"), closing[-1]
