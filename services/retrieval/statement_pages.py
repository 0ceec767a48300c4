"""The pages of the statements a question names, searched on their own (issue #27).

"Relying on the cash flow statement, how much cash did Apple generate from operating activities?"
asks about one page of a 120-page annual report. The statement's title words, which the search
adds (shared/text/search_query.py), match every page that lists the statements as well: the table
of contents, the index to the financial statements, the auditor's opinion, the exhibit index. In a
10-K those outrank the statement's own row chunks, which hold the line item but not the title. So
the chunks of the pages a document titles with the named statement (a short line of its own, and
no other statement titled on that page) are ranked by the same search among themselves, and the
best few join the answer's passages.
"""

from __future__ import annotations

import uuid
from typing import Any

from shared.contracts.retrieval import ChunkHit
from shared.db.conn import Conn
from shared.text.pages import page_pieces
from shared.text.statements import Statement, statement_titled

# Chunks of the named statements' pages that join the passages, per statement named: a statement's
# page is six to eight chunks (its text and its recognised rows), and the row asked is among them.
PER_STATEMENT = 6

PAGE_SCOPE = (
    "c.document_id = ANY(%(ids)s) AND EXISTS (SELECT 1 FROM unnest(%(st_docs)s::uuid[], %(st_pages)s::int[])"
    " AS s(d, p) WHERE s.d = c.document_id AND s.p BETWEEN c.page AND c.page + cardinality(c.page_breaks))"
)


async def titled_pages(conn: Conn, doc_ids: list[uuid.UUID], named: list[Statement]) -> list[tuple[uuid.UUID, int]]:
    """(document, page) of every page in the documents that titles one of the named statements."""
    pattern = "|".join(f"(?:{s.title})" for s in named)
    rows = await (
        await conn.execute(
            "SELECT document_id, page, page_breaks, text FROM chunks WHERE document_id = ANY(%s) AND text ~* %s",
            (doc_ids, pattern),
        )
    ).fetchall()
    found: set[tuple[uuid.UUID, int]] = set()
    for row in rows:
        for page, text in page_pieces(row["text"], row["page"], list(row["page_breaks"] or [])):
            if statement_titled(text) in named:
                found.add((row["document_id"], page))
    return sorted(found)


def marked(hit: ChunkHit, pages: list[tuple[uuid.UUID, int]]) -> ChunkHit:
    """The hit with the titled pages it runs over: the answer quotes the named statement's own rows
    from them, though the title itself sits in another chunk of the page."""
    last = hit.page + len(hit.page_breaks)
    own = [p for d, p in pages if d == hit.document_id and hit.page <= p <= last]
    return hit.model_copy(update={"statement_pages": own}) if own else hit


def scope_params(pages: list[tuple[uuid.UUID, int]]) -> dict[str, Any]:
    return {"st_docs": [d for d, _ in pages], "st_pages": [p for _, p in pages]}
