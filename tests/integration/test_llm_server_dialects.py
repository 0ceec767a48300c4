"""The LLM service against servers that support less than OpenAI, and against models that misbehave.

Through the real `openai` client and the wire double (tests/integration/openai_server.py) in
its dialects: llama-cpp-python's refusal of `json_schema`, a server with no `response_format`
at all, streams without usage, refused `stream_options`; and the rare model mistakes a real
small model does not make on demand: cut-off JSON, empty answers, unknown document ids. The
same cases against a real model are in test_local_model_server.py.
"""

from __future__ import annotations

import json
import uuid

import pytest

from shared.llm import CallScope, LLMService, build_prompt, build_provider
from shared.llm.providers.offline import OFFLINE_ENGINE
from shared.llm.schemas import (
    AnswerInputs,
    AuditFinding,
    AuditInputs,
    AuditOutput,
    AuditTarget,
    DocResolutionInputs,
    DocResolutionOutput,
    IntentInputs,
    IntentOutput,
    Passage,
)
from shared.runtime.service import Infra
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.helpers import ingest_finished, read_events, submit_file, turn_finished
from tests.integration.openai_server import API_KEY, openai_server
from tests.integration.test_llm_openai import PASSAGES, openai_settings, usage_rows
from tests.integration.test_turn import services as turn_services
from tests.integration.test_turn import start_turn

pytestmark = pytest.mark.integration

INTENT = build_prompt("intent", IntentInputs(message="How long are records kept?"))
DOCS = DocResolutionInputs(message="the retention policy", library={"id-policy": "Retention Policy (v1)"})


def service(settings, url: str, notices: list[str] | None = None, **overrides) -> LLMService:
    configured = openai_settings(settings, url).model_copy(update=overrides)
    return LLMService(configured, build_provider(configured), notice=None if notices is None else notices.append)


def formats(server) -> list[str | None]:
    return [(r["body"].get("response_format") or {}).get("type") for r in server.chat_requests()]


async def test_llama_cpp_refusal_of_json_schema_steps_down_to_json_object_once(settings):
    with openai_server(dialect="llama_cpp") as server:
        llm = service(settings, server.url)
        first = await llm.structured("intent", IntentOutput, INTENT)
        second = await llm.structured("intent", IntentOutput, INTENT)
    assert first == second == IntentOutput(actions=["inquire"], confidence="high")
    # One refused json_schema request, then json_object for this model from then on.
    assert formats(server) == ["json_schema", "json_object", "json_object"]
    body = server.chat_requests()[1]["body"]
    assert body["response_format"]["schema"]["required"] == ["actions", "confidence", "web_search"]
    # The schema closes the last user message (Gemma's template refuses two user turns in a row).
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "Reply with only one JSON object" in body["messages"][-1]["content"]


async def test_a_server_without_response_format_gets_the_schema_in_the_prompt(settings):
    with openai_server(dialect="plain") as server:
        llm = service(settings, server.url)
        result = await llm.structured("intent", IntentOutput, INTENT)
    # json_schema and json_object refused (400), then the prompt: JSON in prose and a code fence parses.
    assert formats(server) == ["json_schema", "json_object", None]
    assert result.actions == ["inquire"]


async def test_the_mode_can_be_pinned_by_configuration(settings):
    with openai_server() as server:
        llm = service(settings, server.url, llm_structured_output="prompt")
        result = await llm.structured("intent", IntentOutput, INTENT)
    assert formats(server) == [None] and result.confidence == "high"


async def test_a_refused_request_is_not_retried_and_the_offline_engine_stands_in(settings):
    notices: list[str] = []
    with openai_server() as server:
        configured = openai_settings(settings, server.url).model_copy(update={"openai_api_key": "wrong-key"})
        llm = LLMService(configured, build_provider(configured), notice=notices.append)
        result = await llm.structured("intent", IntentOutput, INTENT)
    assert len(server.chat_requests()) == 1  # a 401 is final: no retry
    assert result.actions == ["inquire"]  # the offline engine's reading of the question
    assert notices == [
        "Understanding your request: the model server refused the request, so PolicyPal's built-in engine did "
        "this step instead."
    ]
    assert "Incorrect API key" not in notices[0]


async def test_an_unreachable_model_is_retried_then_skipped_for_a_while(settings):
    notices: list[str] = []
    with openai_server() as server:
        llm = service(settings, server.url, notices)
        server.faults.extend([503, 503, 503])
        await llm.structured("intent", IntentOutput, INTENT)
        assert len(server.chat_requests()) == 3  # two retries
        # Within the cool-down the next task does not wait on the model again.
        prompt = build_prompt("inquire", AnswerInputs(query="How long?", passages=PASSAGES))
        text = await llm.generate("inquire", prompt)
    assert len(server.chat_requests()) == 3
    assert "[1]" in text and len(notices) == 2
    assert all("did not answer in time" in n for n in notices)


async def test_a_500_that_is_not_about_a_feature_is_transient(settings):
    with openai_server() as server:
        llm = service(settings, server.url)
        server.faults.append(500)
        result = await llm.structured("intent", IntentOutput, INTENT)
    assert formats(server) == ["json_schema", "json_schema"] and result.confidence == "high"


async def test_invalid_json_twice_falls_back_to_the_offline_engine(settings, infra, tenant):
    tenant_id, user_id = tenant
    notices: list[str] = []
    with openai_server() as server:
        configured = openai_settings(settings, server.url)
        llm = LLMService(configured, build_provider(configured), infra.db, notice=notices.append)
        scope = CallScope(str(tenant_id), user_id, None, str(uuid.uuid4()))
        server.faults.extend(["malformed", "cut"])
        result = await llm.structured("intent", IntentOutput, INTENT, scope=scope)
        rows = await usage_rows(infra, tenant_id, scope.run_id)
        again = await llm.structured("intent", IntentOutput, INTENT, scope=scope)
        # For a while the model is not asked for this task again; other tasks still are.
        other = await llm.structured("intent", IntentOutput, build_prompt("intent", IntentInputs(message="Audit it")))
        assert len(server.chat_requests()) == 2
        await llm.structured("doc_resolution", DocResolutionOutput, build_prompt("doc_resolution", DOCS))
    assert result == again and result.actions == ["inquire"] and other.actions == ["audit"]
    assert [r["model"] for r in rows] == ["gpt-4o-mini", "gpt-4o-mini", OFFLINE_ENGINE]  # both paid attempts
    assert len(server.chat_requests()) == 3  # the re-run was answered from the ledger
    assert notices and "answer was not usable" in notices[0]
    assert server.chat_requests()[0]["body"]["max_tokens"] == 64  # intent's cap


async def test_document_ids_the_user_does_not_have_are_dropped_and_titles_mapped(settings):
    library = {"id-policy": "Retention Policy (v1)", "id-reg": "GDPR (2016)"}
    inputs = DocResolutionInputs(message="compare the retention policy with the GDPR", library=library)
    invented = (
        '{"ids": ["id-policy", "id-invented", "GDPR (2016)"], "candidates": [], "source": "inferred", '
        '"confidence": "high"}'
    )
    with openai_server() as server:
        llm = service(settings, server.url)
        server.faults.append(f"answer:{invented}")
        out = await llm.structured("doc_resolution", DocResolutionOutput, build_prompt("doc_resolution", inputs))
    assert out.ids == ["id-policy", "id-reg"] and out.confidence == "low"


async def test_audit_findings_about_documents_not_audited_are_dropped(settings):
    passage = Passage(n=1, document_id="d1", document="Policy (v1)", text="Records are kept for 7 years.")
    inputs = AuditInputs(
        themes=["Records must be deleted after 5 years."],
        targets=[AuditTarget(document_id="d1", document="Policy (v1)", evidence=[[passage]])],
    )
    finding = AuditFinding(
        target_doc_id="d1",
        target_doc_title="Policy (v1)",
        theme="t",
        severity="High",
        issue="i",
        consequence="c",
        source_quote="s",
        target_quote="Records are kept for 7 years.",
        suggestion="x",
        confidence_score=0.9,
        passage=7,
    )
    invented = finding.model_copy(update={"target_doc_id": "d9", "target_doc_title": "Other"})
    answer = AuditOutput(findings=[finding, invented]).model_dump_json()
    with openai_server() as server:
        llm = service(settings, server.url)
        server.faults.append(f"answer:{answer}")
        out = await llm.structured("audit", AuditOutput, build_prompt("audit", inputs))
    assert [f.target_doc_id for f in out.findings] == ["d1"]
    assert out.findings[0].passage is None  # passage 7 was never shown


async def test_a_stream_without_usage_is_counted_and_a_refused_stream_options_is_dropped(settings, infra, tenant):
    tenant_id, user_id = tenant
    prompt = build_prompt("summarize", AnswerInputs(query="Summarize", passages=PASSAGES))
    with openai_server(stream_usage=False, refuse_stream_options=True) as server:
        configured = openai_settings(settings, server.url)
        llm = LLMService(configured, build_provider(configured), infra.db)
        scope = CallScope(str(tenant_id), user_id, None, str(uuid.uuid4()))
        first = "".join([d async for d in llm.stream("summarize", prompt, scope=scope)])
        second = "".join([d async for d in llm.stream("summarize", prompt, scope=scope)])
        rows = await usage_rows(infra, tenant_id, scope.run_id)
    assert first == second == "Records are kept for 7 years. [1]"
    bodies = [r["body"] for r in server.chat_requests()]
    assert ["stream_options" in b for b in bodies] == [True, False, False]  # refused once, remembered
    # No usage from the server: one token per streamed chunk, the prompt estimated; a local model costs $0.
    assert [r["output_tokens"] for r in rows] == [7, 7]
    assert all(r["input_tokens"] > 0 for r in rows)


async def test_an_empty_stream_is_replaced_by_the_offline_answer(settings):
    notices: list[str] = []
    with openai_server() as server:
        llm = service(settings, server.url, notices)
        server.faults.append("empty")
        prompt = build_prompt("inquire", AnswerInputs(query="How long are records kept?", passages=PASSAGES))
        text = "".join([d async for d in llm.stream("inquire", prompt)])
    assert "7 years" in text and "[1]" in text
    assert notices and "Writing the answer" in notices[0]
    assert llm.engine("inquire") == OFFLINE_ENGINE  # the offline engine wrote this answer


async def test_the_engine_names_the_offline_engine_where_it_stood_in_for_another_task(settings):
    with openai_server() as server:
        llm = service(settings, server.url, [])
        assert llm.engine("inquire") == "openai:gpt-4o-mini"
        server.faults.append(400)
        await llm.structured("intent", IntentOutput, INTENT)
        assert llm.engine("inquire") == f"openai:gpt-4o-mini + {OFFLINE_ENGINE} (intent)"


async def test_a_stream_that_breaks_off_keeps_what_was_said_and_says_so(settings):
    notices: list[str] = []
    with openai_server() as server:
        llm = service(settings, server.url, notices)
        server.faults.append("break")
        prompt = build_prompt("inquire", AnswerInputs(query="How long are records kept?", passages=PASSAGES))
        text = "".join([d async for d in llm.stream("inquire", prompt)])
    assert text == "Records are "  # not restarted: the reader has seen these words
    assert notices == ["The model stopped mid-answer, so this answer may be incomplete."]
    assert len(server.chat_requests()) == 1


async def test_prompt_mode_key_is_never_sent_to_a_json_schema_server(settings):
    with openai_server() as server:
        llm = service(settings, server.url)
        await llm.structured("intent", IntentOutput, INTENT)
    body = server.chat_requests()[0]["body"]
    assert body["response_format"]["type"] == "json_schema"
    assert all("Reply with only one JSON object" not in m["content"] for m in body["messages"])


async def turn_on(infra, tenant, url: str, api_key: str, message: str) -> list[dict]:
    """One chat turn through the real workers on the model server at `url`, after an upload."""
    tenant_id, user_id = tenant
    configured = openai_settings(infra.settings, url).model_copy(update={"openai_api_key": api_key})
    model_infra = Infra(settings=configured, bus=infra.bus, db=infra.db)
    async with running(*turn_services(model_infra)):
        doc = await submit_file(
            model_infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf", title="Retention Policy"
        )
        await read_events(infra, infra.bus.subjects.evt_ingest(doc.document_id), until=ingest_finished)
        thread_id = uuid.uuid4()
        cmd = await start_turn(model_infra, tenant_id, user_id, thread_id, message)
        return await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(cmd.run_id))


async def test_a_turn_on_a_llama_cpp_server_is_answered(infra, tenant, embedder):
    with openai_server(dialect="llama_cpp", stream_usage=False) as server:
        events = await turn_on(infra, tenant, server.url, API_KEY, "How long are customer records kept?")
    answer = events[-1]
    assert answer["type"] == "response", answer
    assert answer["engine"] == "openai:gpt-4o-mini" and "[1]" in answer["response"]
    # Each worker process (resolver, inquire) learns the refusal once, then asks for json_object.
    assert formats(server).count("json_schema") == 2 and "json_object" in formats(server)
    assert answer["tokens_used"] > 0


async def test_a_turn_whose_model_refuses_everything_is_answered_offline_and_says_so(infra, tenant, embedder):
    with openai_server() as server:
        events = await turn_on(infra, tenant, server.url, "revoked-key", "How long are customer records kept?")
    answer = events[-1]
    assert answer["type"] == "response", answer
    assert "7 years" in answer["response"] or "[1]" in answer["response"]
    notices = [e["message"] for e in events if e["type"] == "status" and "built-in engine" in e["message"]]
    assert notices and all("refused the request" in n for n in notices)
    assert answer["engine"] == OFFLINE_ENGINE
    assert not any("Incorrect API key" in json.dumps(e) for e in events)
