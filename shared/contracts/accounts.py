"""HTTP bodies of accounts, sessions, invites, onboarding and the audit log (docs/architecture.md §3)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, field_validator

from shared.contracts.common import Contract

# Roles a person can hold in a tenant; `customer` is only ever a widget session.
AccountRole = Literal["user", "agent", "admin"]
AuditAction = Literal[
    "auth.sign_in",
    "auth.sign_in_failed",
    "auth.sign_up",
    "auth.sign_out",
    "auth.refresh_reuse",
    "auth.sso_sign_in",
    "invite.create",
    "invite.accept",
    "user.role_change",
    "user.disable",
    "user.enable",
    "document.upload",
    "document.delete",
    "ticket.resolve",
    "tenant.create",
    "tenant.origins_change",
    "token.mint",
]
EMAIL_PATTERN = r"^[^@\s]+@[^@\s]+\.[^@\s]+$"
MIN_PASSWORD = 10


def _normalise_email(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


# Sign-in accepts any string (a malformed address simply fails like a wrong one); new accounts need a real shape.
LoginEmail = Annotated[str, BeforeValidator(_normalise_email), Field(min_length=1, max_length=320)]
Email = Annotated[
    str, BeforeValidator(_normalise_email), Field(max_length=320, pattern=EMAIL_PATTERN, description="An address.")
]


class Credentials(Contract):
    email: LoginEmail
    password: str = Field(min_length=1, max_length=1024)


class SignUp(Contract):
    email: Email
    password: str = Field(min_length=MIN_PASSWORD, max_length=1024, description=f"At least {MIN_PASSWORD} characters.")
    display_name: str | None = Field(None, max_length=200)


class InviteAccept(Contract):
    token: str = Field(min_length=20, max_length=200)
    password: str = Field(min_length=MIN_PASSWORD, max_length=1024, description=f"At least {MIN_PASSWORD} characters.")
    display_name: str | None = Field(None, max_length=200)


class RefreshRequest(Contract):
    refresh_token: str = Field(min_length=20, max_length=200)


class Session(Contract):
    """A short-lived access JWT (the API's Bearer token) and a rotating refresh token."""

    access_token: str
    refresh_token: str
    expires_in: int
    token_type: Literal["bearer"] = "bearer"
    user_id: str
    tenant_id: uuid.UUID
    role: AccountRole
    onboarded: bool = Field(description="False until the onboarding form was submitted once.")


class InviteCreate(Contract):
    email: Email
    role: AccountRole = "user"


class InviteOut(Contract):
    id: uuid.UUID
    email: str
    role: AccountRole
    expires_at: datetime
    link: str = Field(description="One-time sign-up link; shown once, only its hash is stored.")


class AccountOut(Contract):
    user_id: str
    email: str
    role: AccountRole
    disabled: bool
    onboarded: bool
    created_at: datetime


class AccountList(Contract):
    items: list[AccountOut]


class AccountPatch(Contract):
    role: AccountRole | None = None
    disabled: bool | None = None


class Onboarding(Contract):
    """The first-sign-in form; it lands in the profile the agent's prompts read."""

    company: str = Field(min_length=1, max_length=200)
    country: str = Field(min_length=2, max_length=100)
    industry: str = Field(min_length=2, max_length=200)
    description: str = Field("", max_length=1000)

    @field_validator("company", "country", "industry", "description", mode="before")
    @classmethod
    def _strip(cls, value: Any) -> Any:
        return value.strip() if isinstance(value, str) else value


class Me(Contract):
    user_id: str
    tenant_id: uuid.UUID
    role: str
    email: str | None
    display_name: str | None = None
    onboarded: bool
    profile: Onboarding | None


class SsoOption(Contract):
    tenant_id: uuid.UUID
    name: str
    start_url: str


class AuthConfig(Contract):
    """What the sign-in page offers: open sign-up, and single sign-on buttons."""

    signup_open: bool
    sso: list[SsoOption]


class AuditEntry(Contract):
    id: int
    actor: str
    action: AuditAction
    target: str | None
    detail: dict[str, Any]
    trace_id: str | None
    created_at: datetime


class AuditPage(Contract):
    items: list[AuditEntry]
    next_before: int | None = Field(description="Pass as `before` for the next (older) page; null at the end.")
