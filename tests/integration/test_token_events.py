"""Token deltas are coalesced into ~50 ms windows before they go on the bus, losing nothing."""

from __future__ import annotations

import uuid

from shared.runtime.service import Infra
from tests.conftest import EXAMPLES
from tests.integration.conftest import running
from tests.integration.helpers import ingest_finished, read_events, submit_file, turn_finished
from tests.integration.openai_server import openai_server
from tests.integration.test_llm_openai import openai_settings
from tests.integration.test_turn import services as turn_services
from tests.integration.test_turn import start_turn

WORDS = 80


async def streamed_turn(infra: Infra, tenant, window_ms: int) -> tuple[list[dict], int]:
    tenant_id, user_id = tenant
    with openai_server() as server:
        server.extra_words, server.token_interval_s = WORDS, 0.01  # ≈ 100 tokens/s
        settings = openai_settings(infra.settings, server.url).model_copy(update={"token_window_ms": window_ms})
        model_infra = Infra(settings=settings, bus=infra.bus, db=infra.db)
        async with running(*turn_services(model_infra)):
            doc = await submit_file(model_infra, tenant_id, user_id, EXAMPLES / "data-retention-policy.pdf")
            await read_events(infra, infra.bus.subjects.evt_ingest(doc.document_id), until=ingest_finished)
            thread_id = uuid.uuid4()
            cmd = await start_turn(model_infra, tenant_id, user_id, thread_id, "How long are customer records kept?")
            events = await read_events(infra, infra.bus.subjects.evt_thread(thread_id), until=turn_finished(cmd.run_id))
    return events, WORDS


async def test_a_fast_model_costs_a_publish_per_window_not_per_token(infra, tenant, embedder):
    events, words = await streamed_turn(infra, tenant, window_ms=50)
    tokens = [e for e in events if e["type"] == "token"]
    said = "".join(e["text"] for e in tokens)
    assert events[-1]["type"] == "response"
    assert all(f"word{i}" in said for i in range(words))  # nothing lost
    assert said.index("word0") < said.index(f"word{words - 1}")  # in order
    # ~0.8 s of streaming in 50 ms windows: far fewer events than the 80+ deltas.
    assert 1 < len(tokens) < words / 3
    # The text precedes the terminal event (flushed before it), and the answer is what was said.
    assert events.index(tokens[-1]) < len(events) - 1
    assert events[-1]["response"].strip() == said.strip()


async def test_with_a_zero_window_every_delta_is_its_own_event(infra, tenant, embedder):
    events, words = await streamed_turn(infra, tenant, window_ms=0)
    tokens = [e for e in events if e["type"] == "token"]
    assert len(tokens) >= words
