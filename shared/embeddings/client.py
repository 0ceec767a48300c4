"""The embedding service's caller side: `pp.rpc.embed` request-reply, split into bounded requests.

Every process except the embedding service embeds through this, so none of them loads a model.
When the service is down NATS answers "no responders" at once; when it is stuck the request
times out: both are `EmbeddingUnavailable`, which callers turn into a retry (ingest), a
keyword-only search (retrieval) or an `error` event (chat turns) — never a hang.
"""

from __future__ import annotations

import asyncio
import logging

import numpy as np
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeoutError
from pydantic import ValidationError

from shared.bus import rpc
from shared.bus.connection import Bus
from shared.config import Settings
from shared.contracts import EmbedRequest, EmbedResponse, RpcError
from shared.contracts.embeddings import MAX_TEXT_CHARS
from shared.runtime.caller import current_caller

log = logging.getLogger(__name__)

# Pauses before asking again while nobody answers on pp.rpc.embed (a failover, or a stopped service).
NO_RESPONDERS_PAUSES_S = (0.5, 1.0, 2.0)

# One request stays well below NATS's 1 MB payload limit even for texts full of escapes; a bulk
# request is smaller, so an interactive one queued behind it waits for little.
REQUEST_TEXTS = 64
BULK_REQUEST_TEXTS = 32
REQUEST_CHARS = 200_000


class EmbeddingError(RuntimeError):
    """The embedding service refused a request (a bug in the caller, or the model failed)."""


class EmbeddingUnavailable(EmbeddingError):
    """No embedding service answered in time."""


def request_slices(texts: list[str], most: int = REQUEST_TEXTS) -> list[tuple[int, int]]:
    """[start, end) ranges of at most `most` texts and about REQUEST_CHARS characters each."""
    slices, start, chars = [], 0, 0
    for i, text in enumerate(texts):
        if i > start and (i - start >= most or chars + len(text) > REQUEST_CHARS):
            slices.append((start, i))
            start, chars = i, 0
        chars += len(text)
    if start < len(texts):
        slices.append((start, len(texts)))
    return slices


def wire_text(text: str) -> str:
    """What the contract accepts: no NUL, at most MAX_TEXT_CHARS (MiniLM reads 256 tokens, ~1,000
    characters, and text-embedding-3 8,191 tokens, so the cut never changes a chunk's vector)."""
    return text.replace("\x00", "")[:MAX_TEXT_CHARS]


class EmbeddingClient:
    def __init__(self, bus: Bus, *, dim: int, timeout_s: float, bulk_timeout_s: float | None = None) -> None:
        self.bus = bus
        self.dim = dim
        self.timeout_s = timeout_s
        self.bulk_timeout_s = bulk_timeout_s or timeout_s

    @classmethod
    def for_settings(cls, bus: Bus, settings: Settings) -> EmbeddingClient:
        """The client every process but the embedding service itself uses, as configured."""
        return cls(
            bus,
            dim=settings.embedding_dim,
            timeout_s=settings.embed_timeout_s,
            bulk_timeout_s=settings.embed_bulk_timeout_s,
        )

    async def embed(
        self, texts: list[str], *, stored: bool = True, bulk: bool = False, background: bool = False
    ) -> np.ndarray:
        """L2-normalised float32 rows, one per text. `stored`: accept the vectors saved at ingest
        for texts of the current caller's readable chunks (same model, so the same numbers).
        `bulk` (ingest): queued behind interactive requests, with the longer bulk timeout;
        `background` (a ready document's sentence vectors): bulk, and queued behind bulk too."""
        bulk = bulk or background
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        caller = current_caller.get() if stored else None
        texts = [wire_text(t) for t in texts]
        parts = []
        for start, end in request_slices(texts, BULK_REQUEST_TEXTS if bulk else REQUEST_TEXTS):
            request = EmbedRequest(
                texts=texts[start:end],
                tenant_id=caller.tenant_id if caller else None,
                user_id=caller.user_id if caller else None,
                priority="background" if background else "bulk" if bulk else "interactive",
            )
            parts.append(await self._request(request, self.bulk_timeout_s if bulk else self.timeout_s))
        return np.concatenate(parts)

    async def _request(self, request: EmbedRequest, timeout_s: float) -> np.ndarray:
        """One request, asked again while the answer may only be delayed by a NATS failover: no
        responders (the service's connection is moving to another node; it resubscribes within a
        second or two) is retried for a few seconds, an unanswered request (lost with the node)
        once more. A stopped service therefore fails after those seconds, a hung one after twice
        the timeout."""
        body = request.model_dump_json().encode()
        pauses, timeouts = list(NO_RESPONDERS_PAUSES_S), 1
        while True:
            try:
                answer = await rpc.request(self.bus, self.bus.subjects.rpc_embed, body, timeout_s)
                break
            except NoRespondersError as exc:
                if not pauses:
                    raise EmbeddingUnavailable(
                        "the embedding service is not running (no responders on pp.rpc.embed)"
                    ) from exc
                await asyncio.sleep(pauses.pop(0))
            except (TimeoutError, NatsTimeoutError) as exc:
                if not timeouts:
                    raise EmbeddingUnavailable(f"the embedding service did not answer twice ({timeout_s:g}s)") from exc
                timeouts -= 1
                log.warning("no embedding answer within %gs; asking once more", timeout_s)
        try:
            reply = EmbedResponse.model_validate_json(answer)
        except ValidationError:
            error = RpcError.model_validate_json(answer)
            raise EmbeddingError(f"{error.error}: {error.message}") from None
        vectors = reply.matrix()
        if vectors.shape != (len(request.texts), self.dim):
            expected = (len(request.texts), self.dim)
            raise EmbeddingError(f"embedding service returned {vectors.shape}, expected {expected}")
        return vectors
