"""The embedding service's pure parts: the wire format, request splitting, micro-batching, the LRU."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from pydantic import ValidationError

from services.embedder.batcher import BULK, INTERACTIVE, MicroBatcher
from services.embedder.worker import RecentTexts
from shared.contracts import EmbedRequest, EmbedResponse
from shared.embeddings.client import REQUEST_CHARS, REQUEST_TEXTS, request_slices, wire_text


def test_vectors_survive_the_wire_exactly():
    vectors = np.random.default_rng(1).standard_normal((5, 384)).astype(np.float32)
    reply = EmbedResponse.model_validate_json(EmbedResponse.of("m", vectors, computed=5, took_ms=1.0).model_dump_json())
    assert reply.count == 5 and reply.dim == 384 and np.array_equal(reply.matrix(), vectors)


def test_a_truncated_payload_is_refused():
    reply = EmbedResponse.of("m", np.ones((2, 4), np.float32), computed=2, took_ms=0.0)
    with pytest.raises(ValueError, match="expected 3×4"):
        reply.model_copy(update={"count": 3}).matrix()


@pytest.mark.parametrize(
    "request_fields, problem",
    [
        ({"texts": []}, "at least 1"),
        ({"texts": ["x" * 8001]}, "limit 8000"),
        ({"texts": ["a"], "user_id": "u"}, "go together"),
        ({"texts": ["a\x00b"]}, "NUL"),
    ],
)
def test_bad_requests_name_their_problem(request_fields, problem):
    with pytest.raises(ValidationError, match=problem):
        EmbedRequest.model_validate(request_fields)


def test_requests_are_split_by_count_and_size():
    assert request_slices([]) == []
    assert request_slices(["a"] * (REQUEST_TEXTS + 1)) == [(0, REQUEST_TEXTS), (REQUEST_TEXTS, REQUEST_TEXTS + 1)]
    big = "x" * (REQUEST_CHARS // 2 + 1)
    assert request_slices([big, big, "y"]) == [(0, 1), (1, 3)]
    assert wire_text("a\x00" + "b" * 9000) == "a" + "b" * 7999


async def test_concurrent_requests_share_one_batch_and_get_their_own_rows():
    calls: list[list[str]] = []

    def encode(texts: list[str]) -> np.ndarray:
        calls.append(texts)
        return np.array([[float(len(t))] for t in texts], dtype=np.float32)

    batcher = MicroBatcher(encode, window_s=0.01, max_batch=64)
    runner = asyncio.create_task(batcher.run())
    try:
        answers = await asyncio.gather(batcher.embed(["a", "bb"]), batcher.embed(["bb", "ccc"]), batcher.embed(["d"]))
    finally:
        runner.cancel()
    assert [a[:, 0].tolist() for a in answers] == [[1.0, 2.0], [2.0, 3.0], [1.0]]
    assert calls == [["a", "bb", "ccc", "d"]], "one batch, duplicates encoded once"
    assert batcher.stats.batches == 1 and batcher.stats.most_requests == 3


async def test_a_failing_batch_fails_its_callers_and_the_next_batch_still_runs():
    def encode(texts: list[str]) -> np.ndarray:
        if "boom" in texts:
            raise RuntimeError("model failed")
        return np.zeros((len(texts), 1), np.float32)

    batcher = MicroBatcher(encode, window_s=0.0, max_batch=1)
    runner = asyncio.create_task(batcher.run())
    try:
        with pytest.raises(RuntimeError, match="model failed"):
            await batcher.embed(["boom"])
        assert (await batcher.embed(["fine"])).shape == (1, 1)
    finally:
        runner.cancel()


def test_recent_texts_forget_the_least_recently_used():
    recent = RecentTexts(size=2)
    recent.put("a", np.zeros(1))
    recent.put("b", np.ones(1))
    assert recent.get("a") is not None
    recent.put("c", np.ones(1))
    assert recent.get("b") is None and recent.get("a") is not None and recent.get("c") is not None


async def test_interactive_requests_overtake_queued_bulk_ones():
    calls: list[list[str]] = []

    def encode(texts: list[str]) -> np.ndarray:
        calls.append(texts)
        return np.zeros((len(texts), 1), np.float32)

    batcher = MicroBatcher(encode, window_s=0.0, max_batch=1)
    bulk = asyncio.create_task(batcher.embed(["chunk"], BULK))
    query = asyncio.create_task(batcher.embed(["query"], INTERACTIVE))
    await asyncio.sleep(0)  # both queued before the batcher starts
    runner = asyncio.create_task(batcher.run())
    try:
        await asyncio.gather(bulk, query)
    finally:
        runner.cancel()
    assert calls == [["query"], ["chunk"]]
