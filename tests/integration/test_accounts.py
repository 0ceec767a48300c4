"""Accounts through the gateway on real Postgres: sign-up, sign-in, refresh rotation and reuse,
sign-out, invites with roles, disabling, the throttle and the audit trail they leave."""

from __future__ import annotations

import uuid
from contextlib import asynccontextmanager

import httpx
import pytest

from services.gateway.app import create_app
from shared.auth.tokens import mint_token
from shared.db.pool import tenant_tx
from shared.db.tenants import ensure_tenant
from shared.db.users import audience
from shared.llm.schemas import Profile

pytestmark = pytest.mark.integration
SECRET = "integration-secret-0123456789abcdef0123"
PASSWORD = "correct horse battery"


@asynccontextmanager
async def client_for(settings, tenant_id: uuid.UUID, **overrides):
    app = create_app(
        settings.model_copy(update={"secret_key": SECRET, "signup_tenant_id": str(tenant_id), **overrides})
    )
    transport = httpx.ASGITransport(app=app)
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://gw") as client:
        yield client


def bearer(session: dict) -> dict[str, str]:
    return {"Authorization": f"Bearer {session['access_token']}"}


def email() -> str:
    return f"person-{uuid.uuid4().hex[:10]}@example.com"


@pytest.fixture
async def fresh_tenant(settings) -> uuid.UUID:
    tenant_id = uuid.uuid4()
    await ensure_tenant(settings.admin_url, tenant_id, "Accounts tenant")
    return tenant_id


async def test_sign_up_sign_in_refresh_rotation_reuse_and_sign_out(settings, fresh_tenant):
    address = email()
    async with client_for(settings, fresh_tenant) as client:
        signed_up = await client.post("/v1/auth/signup", json={"email": address.upper(), "password": PASSWORD})
        assert signed_up.status_code == 201, signed_up.text
        assert signed_up.json()["onboarded"] is False and signed_up.json()["role"] == "user"
        again = await client.post("/v1/auth/signup", json={"email": address, "password": PASSWORD})
        assert again.status_code == 409 and again.json()["error"]["code"] == "email_taken"

        session = (await client.post("/v1/auth/signin", json={"email": address, "password": PASSWORD})).json()
        me = (await client.get("/v1/me", headers=bearer(session))).json()
        assert me["email"] == address and me["onboarded"] is False

        rotated = await client.post("/v1/auth/refresh", json={"refresh_token": session["refresh_token"]})
        assert rotated.status_code == 200 and rotated.json()["refresh_token"] != session["refresh_token"]
        # The spent token comes back (stolen, replayed): the whole family dies, the newer token too.
        replay = await client.post("/v1/auth/refresh", json={"refresh_token": session["refresh_token"]})
        assert replay.status_code == 401 and replay.json()["error"]["code"] == "refresh_token_reused"
        newer = await client.post("/v1/auth/refresh", json={"refresh_token": rotated.json()["refresh_token"]})
        assert newer.status_code == 401 and "revoked" in newer.json()["error"]["message"]

        other = (await client.post("/v1/auth/signin", json={"email": address, "password": PASSWORD})).json()
        assert (
            await client.post("/v1/auth/signout", json={"refresh_token": other["refresh_token"]})
        ).status_code == 204
        after = await client.post("/v1/auth/refresh", json={"refresh_token": other["refresh_token"]})
        assert after.status_code == 401
        garbage = await client.post("/v1/auth/refresh", json={"refresh_token": "x" * 40})
        assert garbage.status_code == 401 and garbage.json()["error"]["code"] == "invalid_refresh_token"


async def test_failures_do_not_reveal_whether_the_email_exists(settings, fresh_tenant):
    address = email()
    async with client_for(settings, fresh_tenant) as client:
        await client.post("/v1/auth/signup", json={"email": address, "password": PASSWORD})
        wrong = await client.post("/v1/auth/signin", json={"email": address, "password": "nope-nope-nope"})
        unknown = await client.post("/v1/auth/signin", json={"email": email(), "password": "nope-nope-nope"})
    assert wrong.status_code == unknown.status_code == 401
    assert (
        wrong.json()
        == unknown.json()
        == {"error": {"code": "invalid_credentials", "message": "email or password is incorrect"}}
    )


async def test_sign_up_validates_every_field_precisely(settings, fresh_tenant):
    async with client_for(settings, fresh_tenant) as client:
        short = await client.post("/v1/auth/signup", json={"email": email(), "password": "short"})
        bad = await client.post("/v1/auth/signup", json={"email": "not-an-address", "password": PASSWORD})
    assert short.status_code == bad.status_code == 422
    assert "password" in short.text and "10" in short.text
    assert "email" in bad.text
    async with client_for(settings, fresh_tenant, signup_tenant_id=None) as client:
        closed = await client.post("/v1/auth/signup", json={"email": email(), "password": PASSWORD})
    assert closed.status_code == 403 and closed.json()["error"]["code"] == "signup_closed"


async def test_throttle_delays_after_free_failures_and_a_success_clears_it(settings, fresh_tenant):
    address = email()
    async with client_for(settings, fresh_tenant, signin_free_failures=3, signin_base_delay_s=30.0) as client:
        await client.post("/v1/auth/signup", json={"email": address, "password": PASSWORD})
        codes = [
            (await client.post("/v1/auth/signin", json={"email": address, "password": "wrong-password"})).status_code
            for _ in range(4)
        ]
        refused = await client.post("/v1/auth/signin", json={"email": address, "password": PASSWORD})
    assert codes == [401, 401, 401, 429]
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "signin_throttled"
    assert 25 <= refused.json()["error"]["details"]["retry_after_s"] <= 30


async def test_invite_roles_disable_and_the_audit_trail(settings, infra, fresh_tenant):
    admin_headers = {"Authorization": f"Bearer {mint_token(SECRET, tenant_id=fresh_tenant, sub='boss', role='admin')}"}
    address = email()
    async with client_for(settings, fresh_tenant) as client:
        invite = await client.post("/v1/admin/invites", json={"email": address, "role": "agent"}, headers=admin_headers)
        assert invite.status_code == 201, invite.text
        link = invite.json()["link"]
        assert link.startswith("http://gw/invite#invite=")
        token = link.split("#invite=", 1)[1]
        user_token = {"Authorization": f"Bearer {mint_token(SECRET, tenant_id=fresh_tenant, sub='someone')}"}
        assert (await client.post("/v1/admin/invites", json={"email": email()}, headers=user_token)).status_code == 403

        accepted = await client.post("/v1/auth/invites/accept", json={"token": token, "password": PASSWORD})
        assert accepted.status_code == 201 and accepted.json()["role"] == "agent"
        reused = await client.post("/v1/auth/invites/accept", json={"token": token, "password": PASSWORD})
        assert reused.status_code == 404 and reused.json()["error"]["code"] == "invite_invalid"
        colleague = accepted.json()
        assert (await client.get("/v1/tickets", headers=bearer(colleague))).status_code == 200

        promoted = await client.patch(
            f"/v1/admin/users/{colleague['user_id']}", json={"role": "user"}, headers=admin_headers
        )
        assert promoted.status_code == 200 and promoted.json()["role"] == "user"
        # The old access token (role agent) now acts with the current role: tickets are refused.
        assert (await client.get("/v1/tickets", headers=bearer(colleague))).status_code == 403

        disabled = await client.patch(
            f"/v1/admin/users/{colleague['user_id']}", json={"disabled": True}, headers=admin_headers
        )
        assert disabled.json()["disabled"] is True
        refused = await client.get("/v1/me", headers=bearer(colleague))
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "account_disabled"
        refresh = await client.post("/v1/auth/refresh", json={"refresh_token": colleague["refresh_token"]})
        assert refresh.status_code == 401
        sign_in = await client.post("/v1/auth/signin", json={"email": address, "password": PASSWORD})
        assert sign_in.status_code == 403 and sign_in.json()["error"]["code"] == "account_disabled"
        await client.post("/v1/auth/signin", json={"email": address, "password": "wrong-password"})

        log = (await client.get("/v1/admin/audit", params={"limit": 50}, headers=admin_headers)).json()
    actions = [entry["action"] for entry in log["items"]]
    assert actions == [
        "auth.sign_in_failed",
        "auth.sign_in_failed",
        "user.disable",
        "user.role_change",
        "invite.accept",
        "invite.create",
    ]
    assert log["items"][3]["detail"] == {"from": "agent", "to": "user"}
    assert all(token not in str(entry) for entry in log["items"])


async def test_onboarding_lands_in_the_profile_the_agent_reads(settings, infra, fresh_tenant):
    async with client_for(settings, fresh_tenant) as client:
        session = (await client.post("/v1/auth/signup", json={"email": email(), "password": PASSWORD})).json()
        empty = await client.put(
            "/v1/me/onboarding", json={"company": " ", "country": "M", "industry": ""}, headers=bearer(session)
        )
        assert empty.status_code == 422
        fields = {detail["field"] for detail in empty.json()["error"]["details"]}
        assert fields == {"company", "country", "industry"}
        answers = {"company": "Acme Bank", "country": "Malaysia", "industry": "Banking", "description": "Retail"}
        assert (await client.put("/v1/me/onboarding", json=answers, headers=bearer(session))).status_code == 200
        me = (await client.get("/v1/me", headers=bearer(session))).json()
    assert me["onboarded"] is True and me["profile"] == answers
    async with tenant_tx(infra.db, fresh_tenant, session["user_id"]) as conn:
        profile = Profile(**await audience(conn, session["user_id"]))
    assert profile.describe() == "Banking, Malaysia, Acme Bank, Retail"
