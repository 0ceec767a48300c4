"""Users' profiles as the agent reads them."""

from __future__ import annotations

from psycopg import AsyncConnection


async def audience(conn: AsyncConnection, user_id: str) -> str:
    """The user's profile as "industry, location, company, description" (empty when unset), for the system prompt."""
    row = await (
        await conn.execute("SELECT industry, location, company, description FROM users WHERE id = %s", (user_id,))
    ).fetchone()
    return ", ".join(v for v in (row or {}).values() if v)
