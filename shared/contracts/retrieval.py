"""Request-reply payloads of the retrieval worker (`pp.rpc.retrieval.*`)."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import Field, model_validator

from shared.contracts.common import Contract, DocType


class Scope(Contract):
    """Which chunks a search may see; empty means everything the user may read."""

    doc_ids: list[uuid.UUID] = Field(default_factory=list, max_length=50)
    set_id: uuid.UUID | None = None


class SearchRequest(Contract):
    tenant_id: uuid.UUID
    user_id: str = Field(min_length=1)
    query_text: str | None = Field(None, min_length=1, max_length=8000)
    query_embedding: list[float] | None = None
    scope: Scope = Field(default_factory=Scope)
    per_doc_k: int = Field(4, ge=1, le=50)
    total_k: int = Field(15, ge=1, le=100)
    min_similarity: float | None = Field(None, ge=-1.0, le=1.0)
    hybrid: bool | None = Field(None, description="Fuse full-text ranks with vector ranks; None = server default.")
    rows: bool = Field(
        False,
        description="Only chunks that hold a table row with a figure (a statement's line item with its columns), "
        "for finding the row of one line; a scope of documents or a set only.",
    )
    neighbours: bool = Field(
        False,
        description="With `rows`: each hit's chunks either side that hold rows too (the rest of its table).",
    )

    @model_validator(mode="after")
    def _one_query(self) -> SearchRequest:
        if self.query_text is None and self.query_embedding is None:
            raise ValueError("one of query_text or query_embedding is required")
        if self.rows and not (self.scope.doc_ids or self.scope.set_id):
            raise ValueError("rows searches a scope of documents or a set, not everything visible")
        if self.neighbours and not self.rows:
            raise ValueError("neighbours adds the rest of a table to a rows search: set rows too")
        return self


class SampleRequest(Contract):
    tenant_id: uuid.UUID
    user_id: str = Field(min_length=1)
    doc_ids: list[uuid.UUID] = Field(min_length=1, max_length=50)


class ChunkHit(Contract):
    chunk_id: uuid.UUID
    document_id: uuid.UUID
    title: str
    version: str
    doc_type: DocType
    page: int
    ordinal: int
    section: str | None = None
    text: str
    page_breaks: list[int] = Field(
        default_factory=list, description="Offsets in `text` where later pages begin (page-true citations)."
    )
    statement_pages: list[int] = Field(
        default_factory=list,
        description="Pages of this chunk that title a financial statement the query names (its rows are asked).",
    )
    similarity: float = 0.0
    score: float = 0.0


class SearchResponse(Contract):
    chunks: list[ChunkHit]
    took_ms: float
    mode: Literal["vector", "hybrid", "keyword"] = "vector"


class SampleResponse(Contract):
    chunks: list[ChunkHit]
    took_ms: float


class RpcError(Contract):
    """Reply of a request that could not be served, instead of silence."""

    error: str
    message: str
