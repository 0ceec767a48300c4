"""Sentence vectors stored at ingest, found again by the SHA-256 of the sentence text."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from shared.db.conn import Conn


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


async def replace_sentence_vectors(
    conn: Conn, document: dict[str, Any], model: str, texts: Sequence[str], vectors: np.ndarray
) -> None:
    """The document's sentence vectors, replacing those of an earlier (partial) ingest."""
    await conn.execute("DELETE FROM sentence_vectors WHERE document_id = %s", (document["id"],))
    rows = {text_key(t): v for t, v in zip(texts, vectors, strict=True)}
    async with conn.cursor() as cur:
        await cur.executemany(
            "INSERT INTO sentence_vectors (document_id, tenant_id, user_id, visibility, model, text_sha256, embedding)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s)",
            [
                (document["id"], document["tenant_id"], document["user_id"], document["visibility"], model, key, vec)
                for key, vec in rows.items()
            ],
        )


async def stored_vectors(conn: Conn, model: str, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
    """Vectors of the given text keys that the transaction's user may read (RLS), by key."""
    if not keys:
        return {}
    rows = await (
        await conn.execute(
            "SELECT DISTINCT ON (text_sha256) text_sha256, embedding FROM sentence_vectors"
            " WHERE model = %s AND text_sha256 = ANY(%s)",
            (model, list(keys)),
        )
    ).fetchall()
    return {bytes(r["text_sha256"]): r["embedding"].to_numpy().astype(np.float32) for r in rows}
