"""Request-reply payloads of the embedding service (`pp.rpc.embed`).

Vectors travel as base64 of little-endian float32 rows: a 384-d vector is 2 KB instead of
~8 KB of JSON numbers, so a batch of chunks stays far below NATS's 1 MB message limit.
"""

from __future__ import annotations

import base64
import uuid
from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from shared.contracts.common import Contract

MAX_TEXTS = 256
MAX_TEXT_CHARS = 8000


class EmbedRequest(Contract):
    texts: list[str] = Field(min_length=1, max_length=MAX_TEXTS)
    # With a tenant and user, vectors stored at ingest for these texts (sentences of the chunks
    # the user may read) are returned instead of being computed again.
    tenant_id: uuid.UUID | None = None
    user_id: str | None = Field(None, min_length=1, max_length=200)
    # Interactive requests (a turn's query and sentences) are encoded before bulk ones (a document
    # on its way to `ready`), and those before background ones (sentence vectors of a ready document).
    priority: Literal["interactive", "bulk", "background"] = "interactive"

    @model_validator(mode="after")
    def _bounded(self) -> EmbedRequest:
        for i, text in enumerate(self.texts):
            if len(text) > MAX_TEXT_CHARS:
                raise ValueError(f"texts[{i}] has {len(text)} characters (limit {MAX_TEXT_CHARS})")
        if (self.tenant_id is None) != (self.user_id is None):
            raise ValueError("tenant_id and user_id go together")
        return self


class EmbedResponse(Contract):
    model: str
    dim: int
    count: int
    vectors_b64: str = Field(description="count × dim little-endian float32, row-major, base64.")
    computed: int = Field(0, description="How many of the texts were encoded for this request (the rest were cached).")
    took_ms: float = 0.0

    @classmethod
    def of(cls, model: str, vectors: np.ndarray, computed: int, took_ms: float) -> EmbedResponse:
        rows = np.ascontiguousarray(vectors, dtype="<f4")
        return cls(
            model=model,
            dim=rows.shape[1],
            count=rows.shape[0],
            vectors_b64=base64.b64encode(rows.tobytes()).decode(),
            computed=computed,
            took_ms=took_ms,
        )

    def matrix(self) -> np.ndarray:
        raw = base64.b64decode(self.vectors_b64, validate=True)
        if len(raw) != self.count * self.dim * 4:
            raise ValueError(f"expected {self.count}×{self.dim} float32 values, got {len(raw)} bytes")
        return np.frombuffer(raw, dtype="<f4").reshape(self.count, self.dim).astype(np.float32)
