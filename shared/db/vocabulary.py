"""Which words a reader's library never uses, asked of the full-text index one word at a time."""

from __future__ import annotations

from collections.abc import Sequence

from shared.db.conn import Conn

# A word is used when a chunk of a ready document the reader may see (RLS) holds all of its stems
# ("loan-to-value": loan, value and the compound). A stop word has no stems and counts as used.
UNUSED_WORDS = """
    SELECT w FROM unnest(%(words)s::text[]) AS t(w)
    WHERE numnode(plainto_tsquery('english', w)) > 0 AND NOT EXISTS (
        SELECT 1 FROM chunks c JOIN documents d ON d.id = c.document_id
        WHERE d.status = 'ready' AND c.tsv @@ plainto_tsquery('english', w)
    )
"""


async def unused_words(conn: Conn, words: Sequence[str]) -> list[str]:
    """The words (in their given order) that no readable ready document's text holds."""
    if not words:
        return []
    rows = await (await conn.execute(UNUSED_WORDS, {"words": list(words)})).fetchall()
    unused = {row["w"] for row in rows}
    return [w for w in words if w in unused]
