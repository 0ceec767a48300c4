"""A figure to compute, searched for line by line; a table to compare, searched for among the rows.

"Return on assets, defined as net income / average total assets" needs two rows, often of two
statements. The question's one search ranks the chunks most like the whole question, and the row of
one line may not be among them (a ratio's second row not retrieved: issue #27). So each line the
figure is computed from (shared/text/ratios.py) is also searched for on its own, in the tagged
documents, and its best chunks join the passages; the answer then finds every line's row
(shared/llm/offline/figure_lead.py) or says which is missing. A line's words are mostly met in
prose ("revenue" finds the revenue-recognition policy before the income statement's "Total net
sales" row), so each line is searched twice: among all chunks, and among the chunks that hold a
table row.

"Which product category had the largest decline in net sales?" compares the rows of one table
(shared/text/comparisons.py): the question is searched for among the chunks that hold rows too.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from services.actions import retrieve
from shared.contracts import ChunkHit
from shared.graph.context import StageContext
from shared.graph.state import AgentState
from shared.text.changes import asks_change, changed_line_query
from shared.text.comparisons import asked_superlative
from shared.text.periods import asked_span
from shared.text.ratios import computation
from shared.text.search_query import retrieval_query

# A line's best chunks: its statement row and, often, the same line in the text of its page.
LINE_K = 2
# A change's line: its row with a column per period may sit among rows of other tables of the page.
CHANGE_K = 4
# A table compared: its rows may run over two chunks, and the same table is printed in the MD&A.
TABLE_K = 3


@dataclass(frozen=True)
class LineSearch:
    """One extra search: its text, among row chunks only or all, how many chunks it adds, and whether
    each comes with the rest of its table (the chunks of rows either side)."""

    query: str
    rows: bool
    k: int
    tables: bool = False


def line_queries(question: str) -> list[str]:
    """One search text per line of the figure the question asks to compute (every label a line may
    have); none for a question that asks no computation of several lines."""
    figure = computation(question)
    if figure is None or len(figure.parts) < 2:
        return []
    return [" ".join([*dict.fromkeys(part), *span_words(question)]) for part in figure.parts]


def span_words(question: str) -> list[str]:
    """The words a statement heads the column of the span asked with ("Three Months Ended"): a
    quarterly filing prints a line for several spans, and its reconciliations repeat the line for
    the trailing twelve months, so the line's words alone may find every row but the one asked."""
    span = asked_span(question)
    return [f"{span} Ended"] if span else []


def line_searches(question: str) -> list[LineSearch]:
    """The extra searches a question needs: each line of a figure to compute, among all chunks and
    among row chunks; the question among row chunks when it compares the members of a table."""
    searches = [LineSearch(query, rows, LINE_K) for query in line_queries(question) for rows in (False, True)]
    if not searches and asks_change(question):
        searches.append(LineSearch(" ".join([changed_line_query(question), *span_words(question)]), True, CHANGE_K))
    if asked_superlative(question):
        searches.append(LineSearch(retrieval_query(question, statements=False), True, TABLE_K, tables=True))
    return searches


async def with_lines(
    ctx: StageContext, state: AgentState, question: str, doc_ids: list[str], hits: list[ChunkHit]
) -> list[ChunkHit]:
    """The hits, then each extra search's best chunks that are not among them."""
    searches = line_searches(question)
    if not searches or not doc_ids:
        return hits
    found = {hit.chunk_id for hit in hits}
    extra: list[ChunkHit] = []
    results = await asyncio.gather(
        *(
            retrieve.search(
                ctx,
                state,
                s.query,
                doc_ids,
                per_doc_k=s.k,
                total_k=s.k,
                min_similarity=-1.0,
                hybrid=True,
                rows=s.rows,
                neighbours=s.tables,
            )
            for s in searches
        )
    )
    for line in results:
        for hit in line:
            if hit.chunk_id not in found:
                found.add(hit.chunk_id)
                extra.append(hit)
    return hits + extra
