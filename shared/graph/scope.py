"""The documents a turn works on, from what the user tagged: documents one by one and sets as scopes.

Used by the resolution stage for a new message and by the action stage when a PalAssist answer tags
other documents (`retrieval_low`'s "Tag specific documents"), so both apply the same limits
(docs/architecture.md §7.2). Lookups run under the user's tenant transaction: a document the user
cannot see is simply not found.
"""

from __future__ import annotations

import uuid
from typing import Any

from shared.contracts import ResolvedDoc
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from shared.graph.context import StageContext
from shared.graph.errors import InvalidRequest
from shared.graph.state import AgentState

MAX_DOCS_PER_ACTION = 5
# The most documents one search or sample covers (shared/contracts/retrieval.py, Scope and SampleRequest).
MAX_SCOPE_DOCUMENTS = 50


class TooManyDocuments(InvalidRequest):
    """More documents than one action may use."""


async def lookup(
    ctx: StageContext, state: AgentState, doc_ids: list[str], set_ids: list[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The documents named one by one, in the order the user named them (the database returns them
    in any order), and the documents of the tagged sets that are not among them."""
    async with tenant_tx(ctx.db, state["tenant_id"], state["user_id"]) as conn:
        named = await docs.documents_by_ids(conn, [uuid.UUID(d) for d in doc_ids]) if doc_ids else []
        named.sort(key=lambda row: doc_ids.index(str(row["id"])))
        in_sets = await docs.documents_in_sets(conn, [uuid.UUID(s) for s in set_ids]) if set_ids else []
    named = list({row["id"]: row for row in named}.values())
    seen = {row["id"] for row in named}
    scoped = list({row["id"]: row for row in in_sets if row["id"] not in seen}.values())
    return named, scoped


def within_limits(named: list[dict[str, Any]], scoped: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The 5-document limit is for documents named one by one (feature spec: 1-5 tagged documents);
    a tagged set is a scope and brings all its documents, up to what one search may cover."""
    if len(named) > MAX_DOCS_PER_ACTION:
        raise TooManyDocuments(
            f"{len(named)} documents tagged; an action can use at most {MAX_DOCS_PER_ACTION} documents tagged one "
            "by one. Tag fewer documents, or put them in a set and tag the set."
        )
    if len(named) + len(scoped) > MAX_SCOPE_DOCUMENTS:
        raise TooManyDocuments(
            f"The tagged sets hold {len(named) + len(scoped)} documents; one request can search at most "
            f"{MAX_SCOPE_DOCUMENTS}. Tag a smaller set."
        )
    return [*named, *scoped]


def as_resolved(rows: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The looked-up documents as the state holds them."""
    chosen = [ResolvedDoc(id=row["id"], title=docs.display_name(row), doc_type=row["doc_type"]) for row in rows]
    return [doc.model_dump(mode="json") for doc in chosen]


async def tagged_scope(
    ctx: StageContext, state: AgentState, doc_ids: list[str], set_ids: list[str]
) -> list[dict[str, str]]:
    """The documents of a tag answer, as the state holds them, within the limits."""
    return as_resolved(within_limits(*await lookup(ctx, state, doc_ids, set_ids)))
