"""Accounts: who may sign in to a tenant, with which role, and whether they are disabled."""

from __future__ import annotations

import uuid
from typing import Any

from shared.db.conn import Conn

ACCOUNT_COLUMNS = "a.user_id, a.email, a.password_hash, a.role, a.disabled, a.onboarded_at, a.created_at"


async def tenant_of_email(conn: Conn, email: str) -> uuid.UUID | None:
    """The tenant an address signs in to; read outside any tenant scope (login_directory has no RLS)."""
    row = await (await conn.execute("SELECT tenant_id FROM login_directory WHERE email = %s", (email,))).fetchone()
    return row["tenant_id"] if row else None


async def email_taken(conn: Conn, email: str) -> bool:
    return await tenant_of_email(conn, email) is not None


async def create_account(
    conn: Conn,
    *,
    tenant_id: uuid.UUID,
    email: str,
    password_hash: str | None,
    role: str,
    display_name: str | None = None,
) -> dict:
    """The user row, the account and its directory entry, in the caller's tenant transaction."""
    user_id = str(uuid.uuid4())
    await conn.execute(
        "INSERT INTO users (id, tenant_id, email, display_name) VALUES (%s, %s, %s, %s)",
        (user_id, tenant_id, email, display_name),
    )
    await conn.execute(
        "INSERT INTO accounts (tenant_id, user_id, email, password_hash, role) VALUES (%s, %s, %s, %s, %s)",
        (tenant_id, user_id, email, password_hash, role),
    )
    await conn.execute(
        "INSERT INTO login_directory (email, tenant_id, user_id) VALUES (%s, %s, %s)", (email, tenant_id, user_id)
    )
    return await _account_just_written(conn, user_id)


async def get_account(conn: Conn, user_id: str) -> dict | None:
    return await (
        await conn.execute(f"SELECT {ACCOUNT_COLUMNS} FROM accounts a WHERE a.user_id = %s", (user_id,))
    ).fetchone()


async def get_by_email(conn: Conn, email: str) -> dict | None:
    return await (
        await conn.execute(f"SELECT {ACCOUNT_COLUMNS} FROM accounts a WHERE a.email = %s", (email,))
    ).fetchone()


async def access(conn: Conn, user_id: str) -> dict | None:
    """Role and disabled flag, read on every authenticated request (primary-key lookup)."""
    return await (await conn.execute("SELECT role, disabled FROM accounts WHERE user_id = %s", (user_id,))).fetchone()


async def list_accounts(conn: Conn) -> list[dict]:
    return await (await conn.execute(f"SELECT {ACCOUNT_COLUMNS} FROM accounts a ORDER BY a.created_at")).fetchall()


async def update_account(
    conn: Conn, user_id: str, *, role: str | None, disabled: bool | None
) -> tuple[dict, dict] | None:
    """(before, after) of the change, or None when the user has no account in this tenant."""
    before = await (
        await conn.execute(f"SELECT {ACCOUNT_COLUMNS} FROM accounts a WHERE a.user_id = %s FOR UPDATE", (user_id,))
    ).fetchone()
    if before is None:
        return None
    await conn.execute(
        "UPDATE accounts SET role = COALESCE(%s, role), disabled = COALESCE(%s, disabled) WHERE user_id = %s",
        (role, disabled, user_id),
    )
    return before, await _account_just_written(conn, user_id)


async def _account_just_written(conn: Conn, user_id: str) -> dict[str, Any]:
    """The account this transaction has just inserted or updated (so it is there)."""
    account = await get_account(conn, user_id)
    if account is None:
        raise LookupError(f"account {user_id} vanished inside its own transaction")
    return account


async def mark_onboarded(conn: Conn, user_id: str) -> None:
    await conn.execute(
        "UPDATE accounts SET onboarded_at = COALESCE(onboarded_at, now()) WHERE user_id = %s", (user_id,)
    )


async def by_identity(conn: Conn, issuer: str, subject: str) -> dict | None:
    """The account an identity provider's subject signs in as (in the caller's tenant)."""
    return await (
        await conn.execute(
            f"SELECT {ACCOUNT_COLUMNS} FROM accounts a JOIN sso_identities s USING (tenant_id, user_id)"
            " WHERE s.issuer = %s AND s.subject = %s",
            (issuer, subject),
        )
    ).fetchone()


async def link_identity(conn: Conn, tenant_id: uuid.UUID, issuer: str, subject: str, user_id: str) -> None:
    await conn.execute(
        "INSERT INTO sso_identities (tenant_id, issuer, subject, user_id) VALUES (%s, %s, %s, %s)",
        (tenant_id, issuer, subject, user_id),
    )
