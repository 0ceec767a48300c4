"""Chunks that hold table rows: a search among them, and the rest of a table found in one of them.

A row is stored as a sentence, "Label — Header: figure · …" (shared/text/tables.py render_row), so a
chunk holding one is told by its text. A table runs over two or three chunks; a question comparing
its members ("which segment…") needs the rows of every chunk, not those of the one that matched.
"""

from __future__ import annotations

from services.retrieval.hits import HIT_COLUMNS, as_hit
from shared.contracts import ChunkHit
from shared.db.conn import Conn
from shared.text.tables import LABEL_MARK

# A chunk holding a table row with a figure (shared/text/tables.py render_row), as a Postgres regular
# expression: the label's spaced dash, then a digit before the line ends.
ROW_SQL = f"{LABEL_MARK}[^\n]*[0-9]"


NEIGHBOURS_SQL = f"""
    SELECT {HIT_COLUMNS}, 0.0 AS similarity, 0.0 AS score
    FROM unnest(%(docs)s::uuid[], %(ordinals)s::int[]) AS n(document_id, ordinal)
    JOIN chunks c ON c.document_id = n.document_id AND c.ordinal = n.ordinal
    JOIN documents d ON d.id = c.document_id
    WHERE c.text ~ %(row)s
    ORDER BY c.document_id, c.ordinal
"""


async def table_neighbours(conn: Conn, hits: list[ChunkHit]) -> list[ChunkHit]:
    """The chunks just before and after each hit that hold rows too: a table runs over two or three
    chunks, and a question comparing its members needs all of them ("which segment…" compares the
    rows of every segment, not those of the chunk that matched best)."""
    found = {(hit.document_id, hit.ordinal) for hit in hits}
    wanted = sorted({(h.document_id, h.ordinal + d) for h in hits for d in (-1, 1)} - found)
    if not wanted:
        return []
    params = {"docs": [d for d, _ in wanted], "ordinals": [o for _, o in wanted], "row": ROW_SQL}
    return [as_hit(r) for r in await (await conn.execute(NEIGHBOURS_SQL, params)).fetchall()]
