"""Users' profiles: what the agent reads into its prompts and what the person edits in settings."""

from __future__ import annotations

import uuid
from typing import TypedDict, cast

from shared.db.conn import Conn

PROFILE_COLUMNS = "display_name, email, industry, location, company, description"


class UserProfile(TypedDict):
    """The profile columns of a `users` row; any of them may be unset."""

    display_name: str | None
    email: str | None
    industry: str | None
    location: str | None
    company: str | None
    description: str | None


async def audience(conn: Conn, user_id: str) -> dict[str, str]:
    """The profile fields the agent reads (industry, location, company, description; "" when unset)."""
    row = await (
        await conn.execute("SELECT industry, location, company, description FROM users WHERE id = %s", (user_id,))
    ).fetchone()
    return {k: v or "" for k, v in (row or {}).items()}


async def ensure_user(conn: Conn, user_id: str, tenant_id: uuid.UUID) -> None:
    """A row for a token's subject before its first write (CLI-minted tokens have no account)."""
    await conn.execute("INSERT INTO users (id, tenant_id) VALUES (%s, %s) ON CONFLICT DO NOTHING", (user_id, tenant_id))


async def get_profile(conn: Conn, user_id: str) -> UserProfile | None:
    row = await (await conn.execute(f"SELECT {PROFILE_COLUMNS} FROM users WHERE id = %s", (user_id,))).fetchone()
    # The SELECT lists exactly UserProfile's keys (PROFILE_COLUMNS).
    return cast(UserProfile | None, row)


async def save_onboarding(
    conn: Conn, user_id: str, *, company: str, location: str, industry: str, description: str | None
) -> None:
    """The onboarding answers; display name and email stay as they are."""
    await conn.execute(
        "UPDATE users SET company = %s, location = %s, industry = %s, description = %s WHERE id = %s",
        (company, location, industry, description, user_id),
    )


async def save_profile(
    conn: Conn,
    user_id: str,
    *,
    display_name: str | None,
    email: str | None,
    industry: str | None,
    location: str | None,
    company: str | None,
) -> None:
    """The settings form replaces these fields as a whole; the onboarding description stays."""
    await conn.execute(
        "UPDATE users SET display_name = %s, email = %s, industry = %s, location = %s, company = %s WHERE id = %s",
        (display_name, email, industry, location, company, user_id),
    )
