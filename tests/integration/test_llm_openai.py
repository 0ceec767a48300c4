"""The OpenAI provider through the real `openai` client against a wire-compatible server.

Covers structured output, streaming, retries on 429/500, the corrective retry, usage and cost
in the ledger, replay of a re-run node's call, embeddings, and a whole chat turn whose
response carries the run's tokens and cost.
"""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from shared.db.pool import tenant_tx
from shared.embeddings.provider import OpenAIEmbedder
from shared.llm import CallScope, LLMService, build_prompt, build_provider
from shared.llm.pricing import cost_usd
from shared.llm.schemas import AnswerInputs, IntentInputs, IntentOutput, Passage
from shared.runtime.service import Infra
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.helpers import ingest_finished, read_events, submit_file, turn_finished
from tests.integration.openai_server import API_KEY, COMPLETION_TOKENS, PROMPT_TOKENS, openai_server
from tests.integration.test_turn import services as turn_services
from tests.integration.test_turn import start_turn

pytestmark = pytest.mark.integration

PASSAGES = [
    Passage(
        n=1,
        document_id="d1",
        document="Retention Policy (v1)",
        page=2,
        text="Records are kept for 7 years. Then deleted.",
    ),
    Passage(n=2, document_id="d1", document="Retention Policy (v1)", page=3, text="Backups are encrypted."),
]


def openai_settings(settings, url: str):
    return settings.model_copy(
        update={"llm_provider": "openai", "openai_api_key": API_KEY, "openai_base_url": url, "llm_backoff_s": 0.01}
    )


async def usage_rows(infra, tenant_id, run_id: str) -> list[dict]:
    async with tenant_tx(infra.db, tenant_id) as conn:
        cur = await conn.execute("SELECT * FROM usage WHERE run_id = %s ORDER BY id", (run_id,))
        return await cur.fetchall()


async def test_structured_output_is_routed_priced_and_recorded(infra, tenant):
    tenant_id, user_id = tenant
    with openai_server() as server:
        llm = LLMService(
            openai_settings(infra.settings, server.url),
            build_provider(openai_settings(infra.settings, server.url)),
            infra.db,
        )
        scope = CallScope(str(tenant_id), user_id, str(uuid.uuid4()), str(uuid.uuid4()))
        result = await llm.structured(
            "intent", IntentOutput, build_prompt("intent", IntentInputs(message="hi")), scope=scope
        )
        audit = llm.engine("audit")
    assert result == IntentOutput(actions=["inquire"], confidence="high", web_search=False)
    body = server.chat_requests()[0]["body"]
    assert body["model"] == "gpt-4o-mini" and body["temperature"] == 0.0
    schema = body["response_format"]["json_schema"]
    assert schema["name"] == "IntentOutput" and schema["strict"] is True
    assert schema["schema"]["additionalProperties"] is False
    assert body["messages"][0]["content"].startswith("You are PolicyPal")
    assert audit == "openai:gpt-4o"  # audit is routed to the large model
    [row] = await usage_rows(infra, tenant_id, scope.run_id)
    assert (row["task"], row["model"], row["input_tokens"], row["output_tokens"]) == (
        "intent",
        "gpt-4o-mini",
        PROMPT_TOKENS,
        COMPLETION_TOKENS,
    )
    assert row["cost_usd"] == pytest.approx((PROMPT_TOKENS * 0.15 + COMPLETION_TOKENS * 0.60) / 1e6)
    assert row["thread_id"] == scope.thread_id and row["user_id"] == user_id


async def test_transient_errors_are_retried_then_reported(infra):
    with openai_server() as server:
        settings = openai_settings(infra.settings, server.url)
        llm = LLMService(settings, build_provider(settings))
        server.faults.extend([429, 500])
        text = await llm.generate(
            "inquire", build_prompt("inquire", AnswerInputs(query="How long?", passages=PASSAGES))
        )
        assert text == "Records are kept for 7 years. [1]"
        assert len(server.chat_requests()) == 3
        server.faults.extend([503, 503, 503])
        # Exhausted: the offline engine answers instead of the turn failing (test_llm_server_dialects.py).
        text = await llm.generate(
            "inquire", build_prompt("inquire", AnswerInputs(query="How long?", passages=PASSAGES))
        )
        assert len(server.chat_requests()) == 6 and "[1]" in text


async def test_malformed_structured_output_gets_one_corrective_retry(infra, tenant):
    tenant_id, user_id = tenant
    with openai_server() as server:
        settings = openai_settings(infra.settings, server.url)
        llm = LLMService(settings, build_provider(settings), infra.db)
        scope = CallScope(str(tenant_id), user_id, None, str(uuid.uuid4()))
        server.faults.append("malformed")
        result = await llm.structured(
            "intent", IntentOutput, build_prompt("intent", IntentInputs(message="x")), scope=scope
        )
        assert result.actions == ["inquire"]
        retry = server.chat_requests()[1]["body"]["messages"]
        assert retry[-2] == {"role": "assistant", "content": "{not json"}
        assert "not valid for the required JSON schema" in retry[-1]["content"]
        assert len(await usage_rows(infra, tenant_id, scope.run_id)) == 2  # both attempts are paid for


async def test_a_re_run_node_gets_its_answer_from_the_ledger(infra, tenant):
    tenant_id, user_id = tenant
    with openai_server() as server:
        settings = openai_settings(infra.settings, server.url)
        llm = LLMService(settings, build_provider(settings), infra.db)
        scope = CallScope(str(tenant_id), user_id, None, str(uuid.uuid4()))
        prompt = build_prompt("intent", IntentInputs(message="same request"))
        first = await llm.structured("intent", IntentOutput, prompt, scope=scope)
        again = await llm.structured("intent", IntentOutput, prompt, scope=scope)
        other_run = await llm.structured(
            "intent", IntentOutput, prompt, scope=CallScope(str(tenant_id), user_id, None, "r2")
        )
    assert first == again == other_run
    assert len(server.chat_requests()) == 2  # the repeat within the run was not sent


async def test_streaming_yields_deltas_and_records_usage(infra, tenant):
    tenant_id, user_id = tenant
    with openai_server() as server:
        settings = openai_settings(infra.settings, server.url)
        llm = LLMService(settings, build_provider(settings), infra.db)
        scope = CallScope(str(tenant_id), user_id, None, str(uuid.uuid4()))
        server.faults.append(500)  # before the first delta: retried
        prompt = build_prompt("summarize", AnswerInputs(query="Summarize", passages=PASSAGES))
        deltas = [d async for d in llm.stream("summarize", prompt, scope=scope)]
    assert len(deltas) > 1 and "".join(deltas) == "Records are kept for 7 years. [1]"
    body = server.chat_requests()[-1]["body"]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 1024  # summarize's cap
    [row] = await usage_rows(infra, tenant_id, scope.run_id)
    assert (row["input_tokens"], row["output_tokens"]) == (PROMPT_TOKENS, COMPLETION_TOKENS)


async def test_openai_embeddings_are_batched_normalised_and_dimension_checked(settings):
    with openai_server() as server:
        configured = settings.model_copy(
            update={
                "embedding_provider": "openai",
                "embedding_model": "text-embedding-3-small",
                "embedding_dim": 384,
                "embedding_batch": 2,
                "openai_api_key": API_KEY,
                "openai_base_url": server.url,
            }
        )
        vectors = OpenAIEmbedder(configured).embed(["a", "b", "c"])
        assert vectors.shape == (3, 384)
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
        calls = [r["body"] for r in server.requests if r["path"] == "/v1/embeddings"]
        assert [len(c["input"]) for c in calls] == [2, 1] and calls[0]["dimensions"] == 384
        mismatched = configured.model_copy(update={"embedding_model": "nomic-embed-text", "embedding_dim": 384})
        with pytest.raises(RuntimeError, match="1536-d vectors but PP_EMBEDDING_DIM is 384"):
            OpenAIEmbedder(mismatched).embed(["a"])


async def test_a_turn_on_the_openai_provider_reports_tokens_and_cost(infra, tenant, embedder):
    tenant_id, user_id = tenant
    with openai_server() as server:
        model_infra = Infra(settings=openai_settings(infra.settings, server.url), bus=infra.bus, db=infra.db)
        async with running(*turn_services(model_infra)):
            doc = await submit_file(
                model_infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf", title="Retention Policy"
            )
            await read_events(infra, infra.bus.subjects.evt_ingest(doc.document_id), until=ingest_finished)
            thread_id = uuid.uuid4()
            cmd = await start_turn(model_infra, tenant_id, user_id, thread_id, "How long are customer records kept?")
            events = await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(cmd.run_id))
    answer = events[-1]
    assert answer["type"] == "response", answer
    assert answer["engine"] == "openai:gpt-4o-mini"
    tasks = [
        r["body"]["response_format"]["json_schema"]["name"]
        for r in server.chat_requests()
        if "response_format" in r["body"]
    ]
    assert "IntentOutput" in tasks and "DocResolutionOutput" in tasks
    calls = len(server.chat_requests())
    assert answer["tokens_used"] == calls * (PROMPT_TOKENS + COMPLETION_TOKENS)
    assert answer["cost_usd"] == pytest.approx(
        calls * cost_usd("gpt-4o-mini", PROMPT_TOKENS, COMPLETION_TOKENS, infra.settings), abs=1e-6
    )
    tokens = "".join(e["text"] for e in events if e["type"] == "token")
    assert tokens.strip() == answer["response"].strip() and "[1]" in answer["response"]
    assert answer["citations"][0]["n"] == 1 and answer["citations"][0]["quote"]
