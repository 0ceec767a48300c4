"""A tagged scope one search reads whole, where weak similarity alone is no reason to ask `retrieval_low`.

The `retrieval_low` question says "I couldn't find strong matches in the documents you tagged" and
offers to look further. Over a long document that is what a weak search means: the answer may sit in
passages it did not rank. Over a short one (a one-page standard, a two-page policy) the search ranks
every chunk of it, so nothing went unsearched; and a question in a reader's own words is far from
a short document's passages in the embedder's space as often as not ("Can I put MIT-licensed code
into a commercial product I sell?" against "… to sell copies of the Software", 0.30). Issue #27 asks
that a question a tagged one-page document answers is answered from it, never `retrieval_low`.

So over a scope read whole the question is asked only for a reason it can name (evidence.py): a word
the question asks about that the documents never mention, or a quantity their sentences do not
state. Low similarity alone gets the answer from the closest passages instead, saying that they may
not answer it directly, with low confidence, and a notice of how to search further.
"""

from __future__ import annotations

from collections.abc import Sequence

from shared.config import Settings
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from shared.graph.context import StageContext
from shared.graph.state import AgentState


def tagged_per_doc_k(settings: Settings, documents: int) -> int:
    """Chunks one search returns per tagged document: `total_k` shared among a few of them, at least `per_doc_k`."""
    return max(settings.per_doc_k, settings.total_k // max(documents, 1))


def whole_notice(tagged: int) -> str:
    """The notice under such an answer: where else to look, since nobody was asked."""
    them = "the tagged document was" if tagged == 1 else "the tagged documents were"
    it = "it" if tagged == 1 else "them"
    return f"Only {them} searched; to search all your documents, ask again without tagging {it}."


def unanswered_lead(tagged: int) -> str:
    """How an answer from weak passages opens: they may not answer the question directly. `tagged`: the
    tagged documents read whole (0 when the user chose "continue anyway": then "the documents")."""
    subject = {0: "The documents do", 1: "The tagged document does"}.get(tagged, "The tagged documents do")
    return f"{subject} not seem to answer this directly; the closest passages are:"


def searched_whole(chunk_counts: Sequence[int], tagged: int, settings: Settings) -> bool:
    """Whether one search ranks every chunk of `tagged` documents with these chunk counts (one count per
    document found ready and visible: a missing one is not read)."""
    per_doc_k = tagged_per_doc_k(settings, tagged)
    return (
        tagged > 0
        and len(chunk_counts) == tagged
        and all(count <= per_doc_k for count in chunk_counts)
        and sum(chunk_counts) <= settings.total_k
    )


async def reads_whole(ctx: StageContext, state: AgentState, doc_ids: Sequence[str]) -> bool:
    """Whether one search over the tagged `doc_ids` ranks every chunk of them."""
    if not doc_ids:
        return False
    async with tenant_tx(ctx.db, state["tenant_id"], state["user_id"]) as conn:
        counts = await docs.chunk_counts(conn, doc_ids)
    return searched_whole(counts, len(set(doc_ids)), ctx.settings)
