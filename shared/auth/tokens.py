"""HS256 JWTs with a required `exp` (docs/architecture.md §3).

Roles: user, customer (a widget session), agent, admin (manages its own tenant) and operator
(the platform's: creates tenants; uses no tenant's documents or tickets).
"""

from __future__ import annotations

import time
import uuid
from typing import Literal

import jwt
from pydantic import BaseModel, ValidationError

Role = Literal["user", "customer", "agent", "admin", "operator"]
ROLES: tuple[Role, ...] = ("user", "customer", "agent", "admin", "operator")
LEEWAY_S = 30  # tolerated clock skew between token issuer and gateway


class InvalidToken(Exception):
    pass


class Principal(BaseModel):
    sub: str
    role: Role
    tenant_id: uuid.UUID
    ticket_id: uuid.UUID | None = None
    exp: int

    @property
    def user_id(self) -> str:
        return self.sub


class Customer(Principal):
    """A widget session's principal: always bound to its one ticket."""

    ticket_id: uuid.UUID


def mint_token(
    secret: str,
    *,
    tenant_id: uuid.UUID | str,
    sub: str,
    role: Role = "user",
    ttl_s: int = 3600,
    ticket_id: uuid.UUID | None = None,
) -> str:
    now = int(time.time())
    claims = {"sub": sub, "role": role, "tenant_id": str(tenant_id), "iat": now, "exp": now + ttl_s}
    if ticket_id is not None:
        claims["ticket_id"] = str(ticket_id)
    return jwt.encode(claims, secret, algorithm="HS256")


def verify_token(secret: str, token: str) -> Principal:
    try:
        claims = jwt.decode(token, secret, algorithms=["HS256"], options={"require": ["exp", "sub"]}, leeway=LEEWAY_S)
    except jwt.ExpiredSignatureError as exc:
        raise InvalidToken("token expired") from exc
    except jwt.PyJWTError as exc:
        raise InvalidToken(f"invalid token: {exc}") from exc
    try:
        return Principal.model_validate(claims)
    except ValidationError as exc:
        fields = ", ".join(".".join(map(str, e["loc"])) for e in exc.errors())
        raise InvalidToken(f"invalid token claims: {fields}") from exc
