"""The embedding service on real NATS and Postgres: micro-batching, stored sentence vectors under
row-level security, answers that match the model, clear errors, and the OpenAI provider behind
the same RPC (its wire-level test server)."""

from __future__ import annotations

import asyncio
import uuid

import numpy as np
import pytest

from services.embedder import worker as embedder_worker
from services.ingest.worker import serve as ingest_serve
from shared.contracts import EmbedRequest, EmbedResponse, RpcError
from shared.db.pool import tenant_tx
from shared.embeddings.client import EmbeddingClient, EmbeddingUnavailable
from shared.embeddings.provider import OpenAIEmbedder
from shared.runtime.caller import Caller, current_caller
from shared.runtime.service import Infra
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.helpers import ingest_complete, read_events, submit_file
from tests.integration.openai_server import API_KEY, openai_server

pytestmark = pytest.mark.integration

SENTENCE = "Job applicant data is retained for twelve months after the recruitment decision."


def client_of(infra: Infra, timeout_s: float = 10.0) -> EmbeddingClient:
    return EmbeddingClient(infra.bus, dim=infra.settings.embedding_dim, timeout_s=timeout_s)


@pytest.fixture
def service(infra: Infra, embedder) -> embedder_worker.EmbeddingService:
    return embedder_worker.build_service(infra, embedder)


def serving(infra: Infra, service: embedder_worker.EmbeddingService):
    return running(lambda stop: embedder_worker.answer(infra, service, stop))


async def test_concurrent_callers_share_batches_and_get_the_models_vectors(infra, service, embedder):
    texts = [f"Clause {i}: personal data is kept for {i + 1} months after the contract ends." for i in range(24)]
    async with serving(infra, service):
        client = client_of(infra)
        answers = await asyncio.gather(*(client.embed([t], stored=False) for t in texts))
    expected = embedder.embed(texts)
    got = np.concatenate(answers)
    assert got.shape == (24, 384)
    assert got.shape == expected.shape and np.min(np.sum(got * expected, axis=1)) > 0.99
    stats = service.batcher.stats
    assert stats.texts == 24 and stats.batches < 24 and stats.most_requests > 1


async def test_without_a_service_callers_get_unavailable_at_once(infra):
    with pytest.raises(EmbeddingUnavailable, match="not running"):
        await client_of(infra, timeout_s=5).embed(["anything"], stored=False)


async def test_a_bad_request_gets_an_error_reply(infra, service):
    async with serving(infra, service):
        reply = await infra.bus.nc.request(infra.bus.subjects.rpc_embed, b'{"texts": []}', timeout=5)
    error = RpcError.model_validate_json(reply.data)
    assert error.error == "invalid_request" and "texts" in error.message


async def test_sentences_stored_at_ingest_answer_only_their_readers(infra, service, tenant, embedder):
    tenant_id, user_id = tenant
    async with serving(infra, service), running(lambda stop: ingest_serve(infra, stop)):
        cmd = await submit_file(infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf")
        events = await read_events(infra, infra.bus.subjects.evt_ingest(cmd.document_id), until=ingest_complete)
        assert events[-1]["status"] == "ready"
        async with tenant_tx(infra.db, tenant_id, user_id) as conn:
            query = "SELECT count(*) AS n FROM sentence_vectors WHERE document_id = %s"
            stored = (await (await conn.execute(query, (cmd.document_id,))).fetchone())["n"]
        assert stored > 10

        async def ask(caller: Caller) -> EmbedResponse:
            request = EmbedRequest(texts=[SENTENCE], tenant_id=caller.tenant_id, user_id=caller.user_id)
            reply = await infra.bus.nc.request(
                infra.bus.subjects.rpc_embed, request.model_dump_json().encode(), timeout=10
            )
            return EmbedResponse.model_validate_json(reply.data)

        owner = await ask(Caller(tenant_id, user_id))
        stranger = await ask(Caller(uuid.uuid4(), user_id))
    assert owner.computed == 0, "the owner's sentence comes from the vectors stored at ingest"
    assert stranger.computed == 1, "another tenant's stored vectors are invisible to it"
    # int8 activations are quantised per batch, so a text's vector varies slightly with its batch.
    assert float(owner.matrix()[0] @ embedder.embed([SENTENCE])[0]) > 0.99


async def test_the_client_sends_the_current_callers_scope(infra, service, tenant):
    tenant_id, user_id = tenant
    token = current_caller.set(Caller(tenant_id, user_id))
    try:
        async with serving(infra, service):
            vectors = await client_of(infra).embed([SENTENCE, "x" * 9000])
    finally:
        current_caller.reset(token)
    assert vectors.shape == (2, 384)


async def test_the_openai_provider_answers_through_the_same_service(infra, settings):
    with openai_server() as server:
        configured = settings.model_copy(
            update={
                "embedding_provider": "openai",
                "embedding_model": "text-embedding-3-small",
                "embedding_dim": 384,
                "openai_api_key": API_KEY,
                "openai_base_url": server.url,
            }
        )
        service = embedder_worker.build_service(infra, OpenAIEmbedder(configured))
        async with serving(infra, service):
            vectors = await client_of(infra).embed(["a", "b", "a"], stored=False)
        calls = [r["body"] for r in server.requests if r["path"] == "/v1/embeddings"]
    assert vectors.shape == (3, 384) and np.allclose(vectors[0], vectors[2])
    assert [c["input"] for c in calls] == [["a", "b"]], "duplicates are sent once"
