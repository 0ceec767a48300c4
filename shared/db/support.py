"""Support widget storage: tickets and the tenant's semantic answer cache (docs/architecture.md §8)."""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np
from psycopg.types.json import Jsonb

from shared.db.conn import Conn, one

TICKET_COLUMNS = (
    "id, number, customer_sub, origin, status, question, ai_answer, ai_confidence, human_answer, resolved_by,"
    " created_at, updated_at"
)


async def create_ticket(
    conn: Conn, ticket_id: uuid.UUID, tenant_id: uuid.UUID, customer_sub: str, origin: str
) -> dict[str, Any]:
    return await one(
        await conn.execute(
            "INSERT INTO tickets (id, tenant_id, customer_sub, origin) VALUES (%s, %s, %s, %s)"
            f" RETURNING {TICKET_COLUMNS}",
            (ticket_id, tenant_id, customer_sub, origin),
        )
    )


async def get_ticket(conn: Conn, ticket_id: uuid.UUID | str) -> dict[str, Any] | None:
    return await (await conn.execute(f"SELECT {TICKET_COLUMNS} FROM tickets WHERE id = %s", (ticket_id,))).fetchone()


async def list_tickets(conn: Conn, status: str | None, limit: int) -> list[dict[str, Any]]:
    """The tenant's tickets, oldest waiting first (a queue for human agents)."""
    return await (
        await conn.execute(
            f"SELECT {TICKET_COLUMNS} FROM tickets WHERE (%s::text IS NULL OR status = %s)"
            " ORDER BY updated_at LIMIT %s",
            (status, status, limit),
        )
    ).fetchall()


async def escalate_ticket(
    conn: Conn,
    ticket_id: uuid.UUID | str,
    question: str,
    ai_answer: str | None = None,
    ai_confidence: float | None = None,
) -> int:
    """An open ticket → pending_human with the question it waits on (and the AI's unsent attempt at
    it, for the agent); returns the ticket's number.

    Only an open ticket moves: the escalating node runs again when the agent's answer resumes it,
    and by then the ticket is resolved and must stay so.
    """
    await conn.execute(
        "UPDATE tickets SET status = 'pending_human', question = %s, ai_answer = %s, ai_confidence = %s,"
        " updated_at = now() WHERE id = %s AND status = 'open'",
        (question, ai_answer, ai_confidence, ticket_id),
    )
    row = await one(await conn.execute("SELECT number FROM tickets WHERE id = %s", (ticket_id,)))
    return int(row["number"])


async def resolve_ticket(conn: Conn, ticket_id: uuid.UUID | str, answer: str, agent: str) -> dict[str, Any] | None:
    """pending_human → resolved: the resolved ticket, or None when it was not waiting for a human."""
    return await (
        await conn.execute(
            "UPDATE tickets SET status = 'resolved', human_answer = %s, resolved_by = %s, updated_at = now()"
            f" WHERE id = %s AND status = 'pending_human' RETURNING {TICKET_COLUMNS}",
            (answer, agent, ticket_id),
        )
    ).fetchone()


async def reopen_ticket(conn: Conn, ticket_id: uuid.UUID | str) -> None:
    """A new customer question after a resolution reopens the ticket."""
    await conn.execute(
        "UPDATE tickets SET status = 'open', updated_at = now() WHERE id = %s AND status = 'resolved'", (ticket_id,)
    )


async def corpus_version(conn: Conn) -> str:
    """A fingerprint of the tenant's ready knowledge (tenant-visible documents and their updates)."""
    row = await one(
        await conn.execute(
            "SELECT md5(coalesce(string_agg(id::text || ':' || updated_at::text, ',' ORDER BY id), '')) AS v"
            " FROM documents WHERE visibility = 'tenant' AND status = 'ready'"
        )
    )
    return row["v"]


async def cached_answer(
    conn: Conn, vector: np.ndarray, version: str, min_similarity: float
) -> dict[str, Any] | None:
    """The closest cached answer of the current knowledge version, if similar enough; counts the hit."""
    row = await (
        await conn.execute(
            "SELECT id, question, answer, citations, 1 - (embedding <=> %s) AS similarity FROM answer_cache"
            " WHERE corpus_version = %s ORDER BY embedding <=> %s LIMIT 1",
            (vector, version, vector),
        )
    ).fetchone()
    if row is None or row["similarity"] < min_similarity:
        return None
    await conn.execute("UPDATE answer_cache SET hits = hits + 1 WHERE id = %s", (row["id"],))
    return row


async def remember_answer(
    conn: Conn,
    tenant_id: uuid.UUID | str,
    *,
    question: str,
    vector: np.ndarray,
    answer: str,
    citations: list[dict[str, Any]],
    version: str,
    source: str,
) -> None:
    await conn.execute(
        "INSERT INTO answer_cache (tenant_id, question, embedding, answer, citations, corpus_version, source)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s)",
        (tenant_id, question, vector, answer, Jsonb(citations), version, source),
    )


async def reopen_escalation(conn: Conn, ticket_id: uuid.UUID | str) -> None:
    """Undo a resolution whose answer never reached the bus: the ticket waits for a human again."""
    await conn.execute(
        "UPDATE tickets SET status = 'pending_human', human_answer = NULL, resolved_by = NULL, updated_at = now()"
        " WHERE id = %s",
        (ticket_id,),
    )
