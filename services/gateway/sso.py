"""OpenID Connect single sign-on through Authlib: discovery, authorization code + PKCE, and ID
token checks (signature against the provider's JWKS, re-fetched when an unknown key id shows up
after a rotation; `iss`, `aud`, `exp`, `nonce`).

The browser's state between redirect and callback (state, nonce, PKCE verifier, tenant) rides in
a short-lived HttpOnly cookie signed with the gateway's key, so any gateway replica can finish
a sign-in another one started.
"""

from __future__ import annotations

import time
from typing import Any

import jwt
from authlib.integrations.starlette_client import OAuth

from shared.config import OidcProvider, Settings

STATE_COOKIE = "pp_sso_state"
STATE_TTL_S = 600
ROLE_ORDER = ("admin", "agent", "user")


class SsoError(Exception):
    """A sign-in the provider or its answer did not complete; `code` is shown to the user."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class SsoClients:
    """One Authlib client per tenant with a provider; metadata and JWKS are cached in it."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.oauth = OAuth()
        for tenant, provider in settings.oidc_providers.items():
            self.oauth.register(
                name=tenant,
                client_id=provider.client_id,
                client_secret=provider.client_secret,
                server_metadata_url=f"{provider.issuer.rstrip('/')}/.well-known/openid-configuration",
                client_kwargs={"scope": provider.scope, "code_challenge_method": "S256"},
            )

    def provider(self, tenant: str) -> OidcProvider:
        provider = self.settings.oidc_providers.get(tenant)
        if provider is None:
            raise SsoError("sso_not_configured", "single sign-on is not configured for this tenant")
        return provider

    async def start(self, tenant: str, redirect_uri: str) -> tuple[str, str]:
        """The provider's authorization URL and the signed state cookie to set."""
        self.provider(tenant)
        request = await self.oauth.create_client(tenant).create_authorization_url(redirect_uri)
        state = {
            "tenant": tenant,
            "state": request["state"],
            "nonce": request["nonce"],
            "verifier": request["code_verifier"],
            "exp": int(time.time()) + STATE_TTL_S,
        }
        return request["url"], jwt.encode(state, self.settings.jwt_secret(), algorithm="HS256")

    async def finish(self, cookie: str | None, params: dict[str, str], redirect_uri: str) -> tuple[str, dict]:
        """(tenant, validated ID token claims) of a callback, or SsoError."""
        if "error" in params:
            raise SsoError("sso_denied", f"the identity provider refused: {params['error']}")
        try:
            state = jwt.decode(cookie or "", self.settings.jwt_secret(), algorithms=["HS256"])
        except jwt.PyJWTError as exc:
            raise SsoError("sso_state", "the sign-in took too long or was started elsewhere; try again") from exc
        if not params.get("code") or params.get("state") != state["state"]:
            raise SsoError("sso_state", "the sign-in answer does not match this browser's request; try again")
        client = self.oauth.create_client(state["tenant"])
        try:
            token = await client.fetch_access_token(
                redirect_uri=redirect_uri, code=params["code"], code_verifier=state["verifier"]
            )
            claims = await client.parse_id_token(token, nonce=state["nonce"], leeway=30)
        except Exception as exc:  # Authlib raises OAuth, JOSE and HTTP errors alike; all mean "refused"
            raise SsoError("sso_invalid", f"the identity provider's answer was not valid: {exc}") from exc
        return state["tenant"], dict(claims)


def role_for(provider: OidcProvider, claims: dict[str, Any]) -> str | None:
    """The strongest role any of the claim's values maps to, else the provider's default."""
    raw = claims.get(provider.role_claim)
    values = raw if isinstance(raw, list) else [raw] if raw is not None else []
    mapped = {provider.role_map.get(str(v)) for v in values}
    return next((role for role in ROLE_ORDER if role in mapped), provider.default_role)
