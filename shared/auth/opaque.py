"""Opaque secrets (refresh tokens, invite links): random, tenant-prefixed, stored only as SHA-256.

The tenant prefix is not secret; it lets the gateway open the right tenant's RLS scope before
it looks the hash up, since the token is presented without any other context.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid


class MalformedToken(Exception):
    pass


def new_token(tenant_id: uuid.UUID) -> str:
    return f"{tenant_id.hex}.{secrets.token_urlsafe(32)}"


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def tenant_of(token: str) -> uuid.UUID:
    prefix, _, rest = token.partition(".")
    try:
        if not rest:
            raise ValueError("no secret part")
        return uuid.UUID(hex=prefix)
    except ValueError as exc:
        raise MalformedToken("malformed token") from exc
