"""Thread streams on real NATS and Postgres: the fast path of `GET /v1/threads/{id}/events`, the
ordinary route it hands every refusal to, the batched account and thread checks, and keep-alives
(docs/architecture.md §10)."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from services.gateway.app import create_app
from services.gateway.thread_streams import ThreadStreams
from shared.auth.tokens import mint_token, verify_token
from shared.db import accounts, conversations
from shared.db.pool import tenant_tx
from shared.db.tenants import ensure_tenant
from tests.integration.test_gateway import SECRET, gateway_client
from tests.integration.test_relay_handover import parse_sse, publish_end, publish_status

pytestmark = pytest.mark.integration


async def running_thread(infra, tenant_id: uuid.UUID, user_id: str) -> tuple[uuid.UUID, uuid.UUID]:
    thread_id, run_id = uuid.uuid4(), uuid.uuid4()
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        await conversations.create_conversation(conn, thread_id, tenant_id, user_id)
        await conversations.claim_thread(conn, thread_id, user_id, run_id, 600)
    return thread_id, run_id


def http_scope(app, path: str, headers: dict[str, str], query: str = "") -> dict:
    return {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": query.encode(),
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "app": app,
    }


async def test_fast_path_serves_only_ordinary_requests_that_succeed(settings, infra, tenant):
    """Each refusal is left to the ordinary route (None); the ordinary request gets its stream."""
    tenant_id, user_id = tenant
    thread_id, _ = await running_thread(infra, tenant_id, user_id)
    other_thread, _ = await running_thread(infra, tenant_id, "someone-else")
    token = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)
    customer = mint_token(SECRET, tenant_id=tenant_id, sub="visitor", role="customer", ticket_id=thread_id)
    app = create_app(settings.model_copy(update={"secret_key": SECRET}))
    fast = ThreadStreams(app)
    path = f"/v1/threads/{thread_id}/events"
    bearer = {"Authorization": f"Bearer {token}"}
    async with app.router.lifespan_context(app):
        refused = {
            "no token": http_scope(app, path, {}),
            "bad token": http_scope(app, path, {"Authorization": "Bearer nope"}),
            "customer role": http_scope(app, path, {"Authorization": f"Bearer {customer}"}),
            "not a uuid": http_scope(app, "/v1/threads/0000000000-0000-0000-0000-000000000000/events", bearer),
            "another user's thread": http_scope(app, f"/v1/threads/{other_thread}/events", bearer),
            "bad Last-Event-ID": http_scope(app, path, {**bearer, "Last-Event-ID": "-1"}),
            "bad after": http_scope(app, path, bearer, "after=x"),
            "cross-origin": http_scope(app, path, {**bearer, "Origin": "https://elsewhere.example"}),
        }
        for name, scope in refused.items():
            assert await fast._open(scope) is None, name
        for scope in (http_scope(app, path, bearer), http_scope(app, path, {}, f"token={token}&after=3")):
            response = await fast._open(scope)
            assert response is not None and response.media_type == "text/event-stream"
            await response.events.aclose()  # detaches its feed


async def test_refusals_are_answered_by_the_ordinary_route_as_json(settings, infra, tenant):
    """What the fast path leaves alone is answered like any endpoint: 404, 422 naming the field, 401,
    and the account as it is now (disabled: 401; role changed to agent: 403)."""
    tenant_id, _ = tenant
    async with tenant_tx(infra.db, tenant_id) as conn:
        account = await accounts.create_account(
            conn, tenant_id=tenant_id, email=f"{uuid.uuid4().hex}@example.com", password_hash=None, role="user"
        )
    user_id = account["user_id"]
    other_thread, _ = await running_thread(infra, tenant_id, "someone-else")
    thread_id, _ = await running_thread(infra, tenant_id, user_id)
    path = f"/v1/threads/{thread_id}/events"
    token = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)
    async with gateway_client(settings, token) as client:
        foreign = await client.get(f"/v1/threads/{other_thread}/events")
        bad_id = await client.get(path, headers={"Last-Event-ID": "-1"})
        anonymous = await client.get(path, headers={"Authorization": ""})
        async with tenant_tx(infra.db, tenant_id) as conn:
            await accounts.update_account(conn, user_id, role="agent", disabled=None)
        agent = await client.get(path)
        async with tenant_tx(infra.db, tenant_id) as conn:
            await accounts.update_account(conn, user_id, role="user", disabled=True)
        disabled = await client.get(path)
    assert (foreign.status_code, foreign.json()["error"]["code"]) == (404, "not_found")
    assert (bad_id.status_code, bad_id.json()["error"]["details"][0]["field"]) == (422, "header.Last-Event-ID")
    assert (anonymous.status_code, anonymous.json()["error"]["code"]) == (401, "unauthorized")
    assert (agent.status_code, agent.json()["error"]["code"]) == (403, "forbidden")
    assert (disabled.status_code, disabled.json()["error"]["code"]) == (401, "account_disabled")


async def test_streams_opened_together_are_checked_together_and_each_gets_its_own_answer(settings, infra, tenant):
    """Two tenants' users open many streams at the same moment: every owner gets a stream, every other
    thread (another user's, another tenant's) a 404, whichever batch the request fell into."""
    tenant_id, user_id = tenant
    other_tenant = uuid.uuid4()
    await ensure_tenant(settings.admin_url, other_tenant, "Other tenant", "their-user")
    mine = [(await running_thread(infra, tenant_id, user_id))[0] for _ in range(20)]
    theirs = [(await running_thread(infra, other_tenant, "their-user"))[0] for _ in range(20)]
    app = create_app(settings.model_copy(update={"secret_key": SECRET}))
    me = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)
    them = mint_token(SECRET, tenant_id=other_tenant, sub="their-user")
    async with app.router.lifespan_context(app):
        streams = app.state.gateway.streams
        p_me, p_them = verify_token(SECRET, me), verify_token(SECRET, them)
        checks = [(p_me, t) for t in mine + theirs] + [(p_them, t) for t in theirs + mine]
        outcomes = await asyncio.gather(*(streams.open_thread(p, t) for p, t in checks), return_exceptions=True)
    for (p, thread), outcome in zip(checks, outcomes, strict=True):
        own = (p is p_me and thread in mine) or (p is p_them and thread in theirs)
        if own:
            assert outcome.user_id == p.user_id
        else:
            assert getattr(outcome, "status", None) == 404, (p.user_id, thread)


async def test_an_idle_stream_gets_keep_alives_until_its_terminal_event(settings, infra, tenant):
    tenant_id, user_id = tenant
    thread_id, run_id = await running_thread(infra, tenant_id, user_id)
    token = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)

    async def end_later() -> None:
        await asyncio.sleep(1.2)
        await publish_status(infra.bus, thread_id, run_id, 1)
        await publish_end(infra.bus, thread_id, run_id)

    async with gateway_client(settings, token, sse_keepalive_s=0.25) as client:
        ender = asyncio.create_task(end_later())
        response = await client.get(f"/v1/threads/{thread_id}/events", timeout=30)
        await ender
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert "content-length" not in response.headers
    before_first_event = response.text.split("\r\n\r\nid: ", 1)[0]
    assert before_first_event.count(": keep-alive") >= 3
    events = parse_sse(response.text)
    assert [e["event"] for e in events] == ["status", "error"]
    assert json.loads(events[0]["data"])["message"] == "1"
