"""Web search through the real tavily-python client against a wire-compatible server."""

from __future__ import annotations

import uuid

import pytest

from services.actions import worker as action_worker
from services.ingest import worker as ingest_worker
from services.resolver import worker as resolver_worker
from services.retrieval import worker as retrieval_worker
from shared.runtime.service import Infra
from shared.websearch import WebSearchLimitReached, web_search
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.helpers import ingest_finished, read_events, submit_file, turn_finished
from tests.integration.tavily_server import API_KEY, tavily_server
from tests.integration.test_turn import start_turn

pytestmark = pytest.mark.integration


def with_tavily(infra: Infra, url: str) -> Infra:
    """The same bus and database, with web search pointed at the wire-level Tavily server."""
    settings = infra.settings.model_copy(update={"tavily_api_key": API_KEY, "tavily_base_url": url})
    return Infra(settings=settings, bus=infra.bus, db=infra.db)


async def test_client_retries_once_and_reports_plan_limits(settings):
    with tavily_server() as (url, calls):
        configured = settings.model_copy(update={"tavily_api_key": API_KEY, "tavily_base_url": url})
        results = await web_search(configured, "flaky breach deadline")
        assert [r.url for r in results][:1] == ["https://edpb.example/breach-notification"]
        assert len(calls) == 2 and calls[0]["search_depth"] == "basic"
        with pytest.raises(WebSearchLimitReached, match="1000/month"):
            await web_search(configured, "limit test")


async def test_inquire_adds_cited_web_results_and_reports_the_query(infra, tenant, embedder):
    tenant_id, user_id = tenant
    with tavily_server() as (url, calls):
        web_infra = with_tavily(infra, url)
        services = (
            lambda s: retrieval_worker.serve(web_infra, s),
            lambda s: resolver_worker.serve(web_infra, s),
            lambda s: action_worker.serve_action(web_infra, s, "inquire"),
        )
        async with running(*services):
            thread_id = uuid.uuid4()
            cmd = await start_turn(
                web_infra,
                tenant_id,
                user_id,
                thread_id,
                "What is the latest guidance on breach notification deadlines?",
                action="inquire",
            )
            events = await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(cmd.run_id))
            limited_thread = uuid.uuid4()
            limited = await start_turn(
                web_infra, tenant_id, user_id, limited_thread, "latest limit on retention?", action="inquire"
            )
            limit_events = await read_events(
                infra, infra.bus.subjects.evt_thread(limited_thread), until=turn_finished(limited.run_id)
            )
    web_status = [e for e in events if e["type"] == "status" and e.get("web_query")]
    assert web_status and web_status[0]["web_query"] == "What is the latest guidance on breach notification deadlines?"
    answer = events[-1]
    assert answer["type"] == "response" and "72 hours" in answer["response"] and "From the web" in answer["response"]
    web = [c for c in answer["citations"] if c["source_type"] == "web"]
    assert web and web[0]["url"] == "https://edpb.example/breach-notification"
    assert web[0]["navigation_target"] == {"type": "web", "url": "https://edpb.example/breach-notification"}
    assert "cooking" not in answer["response"]
    assert "1000/month" in limit_events[-1]["response"]


async def test_summary_gets_a_cited_web_supplement(infra, tenant, embedder):
    tenant_id, user_id = tenant
    with tavily_server() as (url, _):
        web_infra = with_tavily(infra, url)
        services = (
            lambda s: ingest_worker.serve(web_infra, s),
            lambda s: retrieval_worker.serve(web_infra, s),
            lambda s: resolver_worker.serve(web_infra, s),
            lambda s: action_worker.serve_action(web_infra, s, "summarize"),
        )
        async with running(*services):
            doc = await submit_file(
                web_infra, tenant_id, user_id, EXAMPLES / "storage-limitation-regulation.pdf", title="Regulation"
            )
            await read_events(infra, infra.bus.subjects.evt_ingest(doc.document_id), until=ingest_finished)
            thread_id = uuid.uuid4()
            cmd = await start_turn(
                web_infra,
                tenant_id,
                user_id,
                thread_id,
                "Summarize breach notification",
                action="summarize",
                tagged_doc_ids=[doc.document_id],
                enable_web_search=True,
            )
            events = await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(cmd.run_id))
    answer = events[-1]
    assert answer["type"] == "response" and "From the web" in answer["response"], answer
    kinds = {c["source_type"] for c in answer["citations"]}
    assert kinds == {"document", "web"}
    # Built per action: the topic, then the summarized document's title (services/actions/profile.py).
    queries = [e["web_query"] for e in events if e["type"] == "status" and e.get("web_query")]
    assert queries == ["Summarize breach notification Regulation"], queries
