"""A wire-level OpenID Connect provider for tests of the real Authlib client.

Serves discovery, an authorization endpoint that signs in `provider.user` at once (no login
form: the browser test still follows every redirect), a token endpoint that checks the client
secret, the redirect URI and the PKCE S256 verifier, and a JWKS endpoint. Keys rotate on
`rotate()`; `tamper` overrides claims of the next ID tokens (wrong audience, nonce, expiry...).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from joserfc import jwt
from joserfc.jwk import RSAKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from tests.integration.wire import serve

CLIENT_ID = "policypal-test"
CLIENT_SECRET = "provider-secret-for-tests"


def new_key() -> RSAKey:
    return RSAKey.generate_key(2048, parameters={"kid": secrets.token_hex(4), "use": "sig", "alg": "RS256"})


@dataclass
class OidcProvider:
    issuer: str = ""
    user: dict[str, Any] = field(default_factory=lambda: {"sub": "idp-alice", "email": "alice@corp.example"})
    tamper: dict[str, Any] = field(default_factory=dict)
    key: RSAKey = field(default_factory=new_key)
    codes: dict[str, dict[str, Any]] = field(default_factory=dict)
    jwks_fetches: int = 0
    token_requests: list[dict[str, str]] = field(default_factory=list)

    def rotate(self) -> None:
        """A new signing key; the old one leaves the JWKS at once (a hard rotation)."""
        self.key = new_key()

    def id_token(self, nonce: str) -> str:
        now = int(time.time())
        claims = {"iss": self.issuer, "aud": CLIENT_ID, "iat": now, "exp": now + 300, "nonce": nonce, **self.user}
        claims.update(self.tamper)
        return jwt.encode({"alg": "RS256", "kid": self.key.kid}, claims, self.key)


def _s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def _client_ok(request: Request, form: dict[str, str]) -> bool:
    basic = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
    by_header = request.headers.get("authorization") == f"Basic {basic}"
    by_form = form.get("client_id") == CLIENT_ID and form.get("client_secret") == CLIENT_SECRET
    return by_header or by_form


def build_app(provider: OidcProvider) -> Starlette:
    async def discovery(_: Request) -> Response:
        return JSONResponse(
            {
                "issuer": provider.issuer,
                "authorization_endpoint": f"{provider.issuer}/authorize",
                "token_endpoint": f"{provider.issuer}/token",
                "jwks_uri": f"{provider.issuer}/jwks",
                "response_types_supported": ["code"],
                "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"],
                "code_challenge_methods_supported": ["S256"],
            }
        )

    async def jwks(_: Request) -> Response:
        provider.jwks_fetches += 1
        return JSONResponse({"keys": [provider.key.as_dict(private=False)]})

    async def authorize(request: Request) -> Response:
        q = request.query_params
        if q.get("client_id") != CLIENT_ID or q.get("code_challenge_method") != "S256":
            return JSONResponse({"error": "invalid_request"}, status_code=400)
        code = secrets.token_urlsafe(16)
        provider.codes[code] = {"nonce": q["nonce"], "challenge": q["code_challenge"], "redirect": q["redirect_uri"]}
        return RedirectResponse(f"{q['redirect_uri']}?{urlencode({'code': code, 'state': q['state']})}", 302)

    async def token(request: Request) -> Response:
        form = dict(await request.form())
        provider.token_requests.append(form)
        grant = provider.codes.pop(form.get("code", ""), None)
        if not _client_ok(request, form):
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        if grant is None or form.get("redirect_uri") != grant["redirect"]:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        if _s256(form.get("code_verifier", "")) != grant["challenge"]:
            return JSONResponse({"error": "invalid_grant", "error_description": "PKCE check failed"}, status_code=400)
        return JSONResponse(
            {
                "access_token": secrets.token_urlsafe(16),
                "token_type": "Bearer",
                "expires_in": 300,
                "id_token": provider.id_token(grant["nonce"]),
            }
        )

    return Starlette(
        routes=[
            Route("/.well-known/openid-configuration", discovery),
            Route("/jwks", jwks),
            Route("/authorize", authorize),
            Route("/token", token, methods=["POST"]),
        ]
    )


@contextmanager
def oidc_provider() -> Iterator[OidcProvider]:
    provider = OidcProvider()

    def app_for(port: int) -> Starlette:
        provider.issuer = f"http://127.0.0.1:{port}"
        return build_app(provider)

    with serve(app_for):
        yield provider
