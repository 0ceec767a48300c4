"""A search result row as a `ChunkHit`: the columns every search selects, read one way."""

from __future__ import annotations

from typing import Any

from shared.contracts import ChunkHit

HIT_COLUMNS = """
    c.id AS chunk_id, c.document_id, d.title, d.version, d.doc_type, c.page, c.ordinal,
    c.section, c.text, c.page_breaks
"""


def as_hit(row: dict[str, Any]) -> ChunkHit:
    similarity = float(row.get("similarity") or 0.0)
    return ChunkHit(
        **{
            k: row[k]
            for k in (
                "chunk_id",
                "document_id",
                "title",
                "version",
                "doc_type",
                "page",
                "ordinal",
                "section",
                "text",
                "page_breaks",
            )
        },
        similarity=similarity,
        score=float(row.get("score") or similarity),
    )
