"""Model output is untrusted input: the rare mistakes a real small model seldom makes on cue, from the
wire double (tests/integration/openai_server.py) through the real `openai` client and the LLM service.

The common ones are in `test_llm_server_dialects.py` (invalid JSON, JSON cut at its token cap, ids the
user does not have, audit findings about documents not audited, an empty stream) and
`test_llm_pace.py` (an answer that does not stop); the real Gemma 270M makes its own in
`test_local_model_server.py`. docs/model-servers.md lists each mistake and what catches it.
"""

from __future__ import annotations

import json

import pytest

from services.actions.citations import CitationBook, passages_of
from shared.llm import build_prompt
from shared.llm.schemas import AnswerInputs, IntentOutput
from tests.integration.openai_server import openai_server
from tests.integration.test_llm_server_dialects import INTENT, service
from tests.unit.test_offline_engine import chunk

pytestmark = pytest.mark.integration


async def test_an_action_that_is_not_ours_is_refused_and_the_offline_engine_reads_the_intent(settings):
    foreign = json.dumps({"actions": ["delete_all_records"], "confidence": "high"})
    notices: list[str] = []
    with openai_server() as server:
        llm = service(settings, server.url, notices)
        server.faults.extend([f"answer:{foreign}", f"answer:{foreign}"])  # asked again: the same answer
        result = await llm.structured("intent", IntentOutput, INTENT)
        corrective = server.chat_requests()[1]["body"]["messages"][-1]["content"]
    assert result.actions == ["inquire"]  # the offline engine's reading of "How long are records kept?"
    assert "delete_all_records" not in result.model_dump_json()
    assert "not valid for the required JSON schema" in corrective
    assert notices == [
        "Understanding your request: the model's answer was not usable, so PolicyPal's built-in engine did this "
        "step instead."
    ]


async def test_a_citation_marker_with_no_passage_behind_it_is_removed_from_the_streamed_answer(settings):
    chunks = [chunk(1, "Customer records are kept for five years after the contract ends.")]
    inputs = AnswerInputs(query="How long are customer records kept?", passages=passages_of(chunks))
    invented = "Customer records are kept for five years [1], or for ten [7] [12]."
    with openai_server() as server:
        llm = service(settings, server.url)
        server.faults.append(f"answer:{invented}")
        book = CitationBook(chunks)
        shown = "".join([book.feed(d) async for d in llm.stream("inquire", build_prompt("inquire", inputs))])
        shown += book.flush()
    assert "[7]" not in shown and "[12]" not in shown and "[1]" in shown
    assert [c["n"] for c in book.citations()] == [1]  # only the passage that exists is cited
