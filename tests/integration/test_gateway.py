"""The gateway in-process (ASGI) on real NATS and Postgres: conversations, profile, 409, 429, health."""

from __future__ import annotations

import asyncio
import uuid
from contextlib import asynccontextmanager

import httpx
import pytest

from services.gateway.app import create_app
from shared.auth.tokens import mint_token
from shared.db import conversations
from shared.db.pool import tenant_tx
from shared.runtime.embedded import free_port, start_nats

pytestmark = pytest.mark.integration
SECRET = "integration-secret-0123456789abcdef0123"


@asynccontextmanager
async def gateway_client(settings, token: str, **overrides):
    app = create_app(settings.model_copy(update={"secret_key": SECRET, **overrides}))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://gw", headers={"Authorization": f"Bearer {token}"}
        ) as client:
            yield client


async def test_conversations_list_rename_delete_and_profile(settings, infra, tenant):
    tenant_id, user_id = tenant
    token = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)
    threads = [uuid.uuid4() for _ in range(3)]
    for n, thread_id in enumerate(threads):
        async with tenant_tx(infra.db, tenant_id, user_id) as conn:
            await conversations.create_conversation(conn, thread_id, tenant_id, user_id)
            await conversations.add_message(
                conn,
                message_id=uuid.uuid4(),
                thread_id=thread_id,
                tenant_id=tenant_id,
                role="user",
                content=f"question number {n}",
            )
    async with gateway_client(settings, token) as client:
        page = (await client.get("/v1/conversations", params={"limit": 2})).json()
        assert [i["thread_id"] for i in page["items"]] == [str(threads[2]), str(threads[1])]
        assert page["items"][0]["title"] == "question number 2" and page["items"][0]["last_message_preview"]
        rest = (await client.get("/v1/conversations", params={"limit": 2, "before": page["next_before"]})).json()
        assert [i["thread_id"] for i in rest["items"]] == [str(threads[0])] and rest["next_before"] is None

        renamed = await client.patch(f"/v1/conversations/{threads[0]}", json={"title": "Renamed"})
        assert renamed.status_code == 200 and renamed.json()["title"] == "Renamed"
        assert (await client.patch(f"/v1/conversations/{uuid.uuid4()}", json={"title": "x"})).status_code == 404
        assert (await client.patch(f"/v1/conversations/{threads[0]}", json={"title": ""})).status_code == 422
        assert (await client.get("/v1/conversations", params={"before": "garbage"})).status_code == 422

        assert (await client.delete(f"/v1/conversations/{threads[1]}")).status_code == 204
        assert (await client.get(f"/v1/chat/history/{threads[1]}")).status_code == 404
        assert len((await client.get("/v1/conversations")).json()["items"]) == 2

        profile = {
            "display_name": "Ann",
            "email": "ann@example.com",
            "industry": "Banking",
            "location": "Ireland",
            "company": "Northwind",
        }
        assert (await client.put("/v1/profile", json=profile)).json() == profile
        assert (await client.get("/v1/profile")).json() == profile
        bad = await client.put("/v1/profile", json={"email": "not-an-email"})
        assert bad.status_code == 422 and bad.json()["error"]["message"].startswith("email")

    stranger = mint_token(SECRET, tenant_id=uuid.uuid4(), sub="eve")
    async with gateway_client(settings, stranger) as client:
        assert (await client.delete(f"/v1/conversations/{threads[0]}")).status_code == 404
        assert (await client.patch(f"/v1/conversations/{threads[0]}", json={"title": "x"})).status_code == 404


async def test_busy_thread_is_409_and_rate_limits_are_429(settings, infra, tenant):
    tenant_id, user_id = tenant
    token = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)
    thread_id = uuid.uuid4()
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        await conversations.create_conversation(conn, thread_id, tenant_id, user_id)
        assert await conversations.claim_thread(conn, thread_id, user_id, uuid.uuid4(), 300)
    async with gateway_client(settings, token, rate_limit_user_per_min=3) as client:
        busy = await client.post("/v1/chat", json={"message": "hello", "thread_id": str(thread_id)})
        assert busy.status_code == 409 and busy.json()["error"]["code"] == "thread_busy"
        codes = [(await client.post("/v1/chat", json={"message": ""})).status_code for _ in range(3)]
        assert codes == [422, 422, 429]
        limited = await client.post("/v1/chat", json={"message": "hi"})
        assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1
        assert limited.json()["error"]["details"]["scope"] == "user"
        assert (await client.get("/readyz")).json() == {"status": "ready", "checks": {"nats": True, "postgres": True}}
        assert "pp_http_requests_total" in (await client.get("/metrics")).text


async def test_nats_down_keeps_healthz_and_answers_503(settings, tenant, tmp_path):
    tenant_id, user_id = tenant
    token = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)
    own_nats = start_nats(tmp_path / "nats", free_port())
    try:
        async with gateway_client(settings, token, nats_url=own_nats.url) as client:
            assert (await client.get("/readyz")).status_code == 200
            own_nats.stop()
            for _ in range(50):  # the client notices the lost connection within a few hundred ms
                if (await client.get("/readyz")).status_code == 503:
                    break
                await asyncio.sleep(0.1)
            assert (await client.get("/healthz")).json() == {"status": "ok"}
            ready = await client.get("/readyz")
            assert ready.status_code == 503 and ready.json()["checks"] == {"nats": False, "postgres": True}
            chat = await client.post("/v1/chat", json={"message": "hello"})
            assert chat.status_code == 503 and chat.json()["error"]["code"] == "bus_unavailable"
            upload = await client.post("/v1/documents", files={"file": ("a.txt", b"hello")}, data={"title": "t"})
            assert upload.status_code == 503
    finally:
        own_nats.stop()


async def test_roles_body_limit_and_other_users_threads(settings, infra, tenant):
    tenant_id, user_id = tenant
    owner = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)
    thread_id = uuid.uuid4()
    async with tenant_tx(infra.db, tenant_id, user_id) as conn:
        await conversations.create_conversation(conn, thread_id, tenant_id, user_id)
    async with gateway_client(settings, owner, max_request_bytes=10_000) as client:
        huge = await client.post(
            "/v1/chat", content=b'{"message": "' + b"a" * 20_000 + b'"}', headers={"Content-Type": "application/json"}
        )
        assert huge.status_code == 413 and huge.json()["error"]["code"] == "payload_too_large"
        for role in ("customer", "agent"):
            token = mint_token(SECRET, tenant_id=tenant_id, sub="someone", role=role)
            refused = await client.get("/v1/documents", headers={"Authorization": f"Bearer {token}"})
            assert refused.status_code == 403 and refused.json()["error"]["code"] == "forbidden"
        expired = mint_token(SECRET, tenant_id=tenant_id, sub=user_id, ttl_s=-3600)
        gone = await client.get("/v1/documents", headers={"Authorization": f"Bearer {expired}"})
        assert gone.status_code == 401 and "expired" in gone.json()["error"]["message"]
        via_query = await client.get(
            f"/v1/chat/history/{thread_id}", params={"token": owner}, headers={"Authorization": ""}
        )
        assert via_query.status_code == 200

        for intruder in (
            mint_token(SECRET, tenant_id=tenant_id, sub="colleague"),
            mint_token(SECRET, tenant_id=uuid.uuid4(), sub=user_id),
        ):
            auth = {"Authorization": f"Bearer {intruder}"}
            assert (await client.get(f"/v1/chat/history/{thread_id}", headers=auth)).status_code == 404
            assert (await client.get(f"/v1/threads/{thread_id}/events", headers=auth)).status_code == 404
            resume = await client.post(
                "/v1/chat/resume", headers=auth, json={"thread_id": str(thread_id), "resume_value": {"type": "cancel"}}
            )
            assert resume.status_code == 404
            chat = await client.post("/v1/chat", headers=auth, json={"message": "hi", "thread_id": str(thread_id)})
            assert chat.status_code == 404
            assert (await client.delete(f"/v1/conversations/{thread_id}", headers=auth)).status_code == 404
        nothing_pending = await client.post(
            "/v1/chat/resume", json={"thread_id": str(thread_id), "resume_value": {"type": "cancel"}}
        )
        assert nothing_pending.status_code == 409 and nothing_pending.json()["error"]["code"] == "no_pending_interrupt"


async def test_cors_allows_only_configured_origins(settings, tenant):
    tenant_id, user_id = tenant
    token = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)
    async with gateway_client(settings, token, cors_origins=["https://app.example.com"]) as client:
        preflight = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization"}
        allowed = await client.options("/v1/chat", headers={"Origin": "https://app.example.com", **preflight})
        assert allowed.headers.get("access-control-allow-origin") == "https://app.example.com"
        foreign = await client.options("/v1/chat", headers={"Origin": "https://evil.example", **preflight})
        assert "access-control-allow-origin" not in foreign.headers


async def test_an_upload_whose_file_name_the_ingest_job_cannot_carry_is_refused_before_any_write(settings, tenant):
    tenant_id, user_id = tenant
    token = mint_token(SECRET, tenant_id=tenant_id, sub=user_id)
    async with gateway_client(settings, token) as client:
        before = (await client.get("/v1/documents")).json()
        upload = await client.post(
            "/v1/documents", files={"file": ("a" * 600 + ".txt", b"hello")}, data={"title": "Long name"}
        )
        assert upload.status_code == 422, upload.text
        error = upload.json()["error"]
        assert error["code"] == "validation_error" and error["message"].startswith("filename:")
        assert (await client.get("/v1/documents")).json() == before
