"""A figure to compute, searched for line by line.

"Return on assets, defined as net income / average total assets" needs two rows, often of two
statements. The question's one search ranks the chunks most like the whole question, and the row of
one line may not be among them (a ratio's second row not retrieved: issue #27). So each line the
figure is computed from (shared/text/ratios.py) is also searched for on its own, in the tagged
documents, and its best chunks join the passages; the answer then finds every line's row
(shared/llm/offline/figure_lead.py) or says which is missing.
"""

from __future__ import annotations

import asyncio

from services.actions import retrieve
from shared.contracts import ChunkHit
from shared.graph.context import StageContext
from shared.graph.state import AgentState
from shared.text.ratios import computation

# A line's best chunks: its statement row and, often, the same line in the text of its page.
LINE_K = 2


def line_queries(question: str) -> list[str]:
    """One search text per line of the figure the question asks to compute (every label a line may
    have); none for a question that asks no computation of several lines."""
    figure = computation(question)
    if figure is None or len(figure.parts) < 2:
        return []
    return [" ".join(dict.fromkeys(part)) for part in figure.parts]


async def with_lines(
    ctx: StageContext, state: AgentState, question: str, doc_ids: list[str], hits: list[ChunkHit]
) -> list[ChunkHit]:
    """The hits, then each line's best chunks that are not among them."""
    queries = line_queries(question)
    if not queries or not doc_ids:
        return hits
    searches = (
        retrieve.search(ctx, state, query, doc_ids, per_doc_k=LINE_K, total_k=LINE_K, min_similarity=-1.0, hybrid=True)
        for query in queries
    )
    found = {hit.chunk_id for hit in hits}
    extra: list[ChunkHit] = []
    for line in await asyncio.gather(*searches):
        for hit in line:
            if hit.chunk_id not in found:
                found.add(hit.chunk_id)
                extra.append(hit)
    return hits + extra
