"""OpenID Connect sign-in through the real Authlib client against a wire-level provider:
PKCE, ID token checks, key rotation, and subject + claim → tenant and role."""

from __future__ import annotations

import time
import uuid
from contextlib import asynccontextmanager
from urllib.parse import parse_qs, urlparse

import httpx
import pytest

from services.gateway.app import create_app
from shared.config import OidcProvider as ProviderSettings
from shared.db import audit
from shared.db.pool import tenant_tx
from shared.db.tenants import ensure_tenant
from tests.integration.oidc_provider import CLIENT_ID, CLIENT_SECRET, OidcProvider, oidc_provider

pytestmark = pytest.mark.integration
SECRET = "integration-secret-0123456789abcdef0123"


@pytest.fixture
def provider():
    with oidc_provider() as running:
        yield running


@asynccontextmanager
async def gateway_for(settings, tenant_id: uuid.UUID, provider: OidcProvider, **overrides):
    configured = ProviderSettings(
        issuer=provider.issuer,
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        name="Corp SSO",
        role_map={"pp-admins": "admin", "support": "agent"},
        **overrides,
    )
    app = create_app(settings.model_copy(update={"secret_key": SECRET, "oidc_providers": {str(tenant_id): configured}}))
    transport = httpx.ASGITransport(app=app)
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://gw") as client:
        yield client


async def round_trip(client: httpx.AsyncClient, tenant_id: uuid.UUID) -> httpx.Response:
    """Start → provider → callback, as a browser follows the redirects; returns the callback's answer."""
    start = await client.get(f"/v1/auth/sso/{tenant_id}/start")
    assert start.status_code == 302, start.text
    query = parse_qs(urlparse(start.headers["location"]).query)
    assert query["code_challenge_method"] == ["S256"] and query["nonce"] and query["state"]
    async with httpx.AsyncClient() as browser:
        at_provider = await browser.get(start.headers["location"])
    assert at_provider.status_code == 302
    callback = urlparse(at_provider.headers["location"])
    return await client.get(f"{callback.path}?{callback.query}")


@pytest.fixture
async def sso_tenant(settings) -> uuid.UUID:
    tenant_id = uuid.uuid4()
    await ensure_tenant(settings.admin_url, tenant_id, "SSO tenant")
    return tenant_id


def subject() -> dict:
    tag = uuid.uuid4().hex[:8]
    return {"sub": f"idp-{tag}", "email": f"{tag}@corp.example", "groups": ["staff"]}


async def test_round_trip_creates_the_account_and_hands_the_session_over_once(settings, infra, provider, sso_tenant):
    provider.user = {**subject(), "groups": ["staff", "pp-admins"]}
    async with gateway_for(settings, sso_tenant, provider) as client:
        config = (await client.get("/v1/auth/config")).json()
        assert config["sso"] == [
            {"tenant_id": str(sso_tenant), "name": "Corp SSO", "start_url": f"/v1/auth/sso/{sso_tenant}/start"}
        ]
        done = await round_trip(client, sso_tenant)
        assert done.status_code == 302 and done.headers["location"] == "/signin?sso=done"
        assert "token" not in done.headers["location"]
        session = await client.post("/v1/auth/sso/session")
        assert session.status_code == 200, session.text
        body = session.json()
        assert body["role"] == "admin" and body["tenant_id"] == str(sso_tenant)
        me = (await client.get("/v1/me", headers={"Authorization": f"Bearer {body['access_token']}"})).json()
        assert me["email"] == provider.user["email"]
        # The hand-off cookie's token was rotated by the redemption: it cannot be redeemed again.
        assert (await client.post("/v1/auth/sso/session")).status_code == 401

        # The same subject again: the same account, the role following the provider's claim.
        provider.user = {**provider.user, "groups": ["support"]}
        await round_trip(client, sso_tenant)
        again = (await client.post("/v1/auth/sso/session")).json()
    assert again["user_id"] == body["user_id"] and again["role"] == "agent"
    async with tenant_tx(infra.db, sso_tenant) as conn:
        actions = [e["action"] for e in await audit.page(conn, limit=10)]
    assert actions == ["auth.sso_sign_in", "user.role_change", "auth.sso_sign_in"]
    verifiers = [r.get("code_verifier") for r in provider.token_requests]
    assert all(v and len(v) >= 43 for v in verifiers)


async def test_a_rotated_signing_key_is_fetched_from_the_jwks(settings, provider, sso_tenant):
    provider.user = subject()
    async with gateway_for(settings, sso_tenant, provider) as client:
        assert (await round_trip(client, sso_tenant)).headers["location"] == "/signin?sso=done"
        fetches = provider.jwks_fetches
        provider.rotate()
        assert (await round_trip(client, sso_tenant)).headers["location"] == "/signin?sso=done"
    assert provider.jwks_fetches == fetches + 1


@pytest.mark.parametrize(
    "tamper",
    [
        {"aud": "someone-else"},
        {"iss": "https://evil.example"},
        {"exp": int(time.time()) - 3600},
        {"nonce": "replayed-nonce"},
    ],
    ids=["aud", "iss", "exp", "nonce"],
)
async def test_id_tokens_failing_a_check_are_refused(settings, infra, provider, sso_tenant, tamper):
    provider.user = subject()
    provider.tamper = tamper
    async with gateway_for(settings, sso_tenant, provider) as client:
        refused = await round_trip(client, sso_tenant)
        assert refused.headers["location"] == "/signin?sso_error=sso_invalid"
        assert (await client.post("/v1/auth/sso/session")).status_code == 401
    async with tenant_tx(infra.db, sso_tenant) as conn:
        assert await (await conn.execute("SELECT * FROM accounts")).fetchall() == []


async def test_no_matching_claim_and_no_default_role_refuses(settings, provider, sso_tenant):
    provider.user = subject()
    async with gateway_for(settings, sso_tenant, provider, default_role=None) as client:
        refused = await round_trip(client, sso_tenant)
    assert refused.headers["location"] == "/signin?sso_error=sso_no_role"


async def test_a_forged_state_and_an_unknown_tenant_are_refused(settings, provider, sso_tenant):
    provider.user = subject()
    async with gateway_for(settings, sso_tenant, provider) as client:
        await client.get(f"/v1/auth/sso/{sso_tenant}/start")
        forged = await client.get("/v1/auth/sso/callback", params={"code": "x", "state": "not-the-state"})
        assert forged.headers["location"] == "/signin?sso_error=sso_state"
        unknown = await client.get(f"/v1/auth/sso/{uuid.uuid4()}/start")
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "sso_not_configured"
