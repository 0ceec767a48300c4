"""The checks behind open SSE thread streams, each for many streams of one tenant in one query.

Thousands of clients may open (or hold) thread streams in the same second; asking once per stream
made Postgres round trips most of a stream's setup cost (docs/architecture.md §10), so the gateway
batches them (`services/gateway/stream_checks.py`) and these take the whole batch. RLS restricts
every query to the transaction's tenant; rows come back in the order of the input.
"""

from __future__ import annotations

import uuid

from shared.db.conn import Conn


async def stream_access(conn: Conn, requests: list[tuple[str, uuid.UUID]]) -> list[dict]:
    """Per `(user_id, thread_id)`: the account's `role` and `disabled` (None without an account) and
    whether the thread is that user's (`owned`)."""
    rows = await (
        await conn.execute(
            "SELECT a.role, a.disabled, c.thread_id IS NOT NULL AS owned"
            " FROM unnest(%s::text[], %s::uuid[]) WITH ORDINALITY AS r(user_id, thread_id, i)"
            " LEFT JOIN accounts a ON a.user_id = r.user_id"
            " LEFT JOIN conversations c ON c.thread_id = r.thread_id AND c.user_id = r.user_id"
            " ORDER BY r.i",
            ([user for user, _ in requests], [thread for _, thread in requests]),
        )
    ).fetchall()
    return list(rows)


async def threads_active(conn: Conn, threads: list[uuid.UUID]) -> list[bool]:
    """Per thread: a run is in progress on it, or (support) its ticket waits for a human."""
    rows = await (
        await conn.execute(
            "SELECT coalesce(c.status = 'running' OR EXISTS (SELECT 1 FROM tickets t WHERE t.id = c.thread_id"
            " AND t.status = 'pending_human'), false) AS active"
            " FROM unnest(%s::uuid[]) WITH ORDINALITY AS r(thread_id, i)"
            " LEFT JOIN conversations c ON c.thread_id = r.thread_id ORDER BY r.i",
            (threads,),
        )
    ).fetchall()
    return [row["active"] for row in rows]
