"""The LLM service against slow servers, and what its services learn together (docs/model-servers.md).

Through the real `openai` client and the wire double made slow (`latency_s`): a request that
times out is not asked again; once a model's pace is measured, a pipeline step that would overrun
its budget goes to the offline engine without asking, and an answer's passages and token cap are
fitted to the answer budget; what one service learns (the server's structured-output mode, the
pace) is known to another service and process through the lessons file. These are behaviours,
not timings: the budgets are set far below or above what the double takes.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from shared.llm import LLMService, build_prompt, build_provider
from shared.llm.lessons import LessonBook
from shared.llm.schemas import AnswerInputs, AuditInputs, AuditOutput, AuditTarget, IntentOutput, Passage
from shared.llm.tasks import max_tokens_for
from tests.integration.openai_server import openai_server
from tests.integration.test_llm_openai import openai_settings
from tests.integration.test_llm_server_dialects import INTENT, formats, service

pytestmark = pytest.mark.integration

LONG = " ".join(["Customer records are kept for five years after the end of the contract."] * 40)
MANY = [
    Passage(n=i, document_id="doc-policy", document="Retention Policy (v1)", page=i, text=LONG) for i in range(1, 6)
]


def user_text(request: dict) -> str:
    return "".join(m["content"] for m in request["body"]["messages"] if m["role"] == "user")


async def test_a_request_that_times_out_is_not_repeated_and_the_offline_engine_stands_in(settings):
    notices: list[str] = []
    with openai_server(latency_s=2.0) as server:
        llm = service(settings, server.url, notices, llm_timeout_s=0.3, llm_retries=2)
        result = await llm.structured("intent", IntentOutput, INTENT)
        assert len(server.chat_requests()) == 1  # a slow server stays slow: waiting again is not retried
        # The model is skipped for the cool-down: the next task does not wait on it again.
        await llm.structured("intent", IntentOutput, INTENT)
    assert len(server.chat_requests()) == 1
    assert result.actions == ["inquire"]  # the offline engine's reading
    assert all("did not answer in time" in n for n in notices) and len(notices) == 2


SLOW_STEP = (
    "Understanding your request: the model would take too long for this step, so PolicyPal's built-in engine "
    "did this step instead."
)


async def test_a_step_is_streamed_and_cut_at_its_budget(settings):
    notices: list[str] = []
    with openai_server(latency_s=1.0) as server:
        llm = service(settings, server.url, notices, llm_step_budget_s=0.2)
        result = await llm.structured("intent", IntentOutput, INTENT)
        (request,) = server.chat_requests()
    assert request["body"]["stream"]  # a stream closed by the reader stops the server writing
    assert result.actions == ["inquire"] and notices == [SLOW_STEP]


async def test_a_step_that_would_overrun_its_budget_at_the_measured_pace_is_not_asked(settings):
    notices: list[str] = []
    answer = build_prompt("inquire", AnswerInputs(query="How long are records kept?", passages=MANY[:1]))
    with openai_server(latency_s=0.3, token_interval_s=0.01) as server:
        llm = service(settings, server.url, notices, llm_step_budget_s=0.05)
        assert "".join([d async for d in llm.stream("inquire", answer)])  # measures the pace
        result = await llm.structured("intent", IntentOutput, INTENT)
    assert len(server.chat_requests()) == 1
    assert result.actions == ["inquire"] and notices == [SLOW_STEP]


async def test_an_answer_is_fitted_to_the_answer_budget_and_a_generous_budget_changes_nothing(settings):
    prompt = build_prompt("inquire", AnswerInputs(query="How long are records kept?", passages=MANY))
    for budget, fitted in ((0.5, True), (600.0, False)):
        with openai_server(latency_s=0.2, token_interval_s=0.01) as server:
            llm = service(settings, server.url, llm_answer_budget_s=budget)
            for _ in range(2):  # the first answer measures the pace, the second is fitted to it
                assert "".join([d async for d in llm.stream("inquire", prompt)])
            first, second = server.chat_requests()
        assert (len(user_text(second)) < len(user_text(first)) / 2) is fitted
        assert (second["body"]["max_tokens"] < first["body"]["max_tokens"]) is fitted
        # Shortened, never renumbered: every passage the model sees keeps its number and document.
        assert "[1] Retention Policy (v1), page 1" in user_text(second)


async def test_what_one_service_learns_another_knows_through_the_lessons_file(settings, tmp_path):
    lessons = tmp_path / "model-lessons.json"
    with openai_server(dialect="llama_cpp") as server:
        await service(settings, server.url, llm_lessons_file=lessons).structured("intent", IntentOutput, INTENT)
        assert formats(server) == ["json_schema", "json_object"]
        # Another process: a book of its own, reading what the first one wrote.
        LessonBook._books.clear()
        configured = openai_settings(settings, server.url).model_copy(update={"llm_lessons_file": lessons})
        await LLMService(configured, build_provider(configured)).structured("intent", IntentOutput, INTENT)
    assert formats(server) == ["json_schema", "json_object", "json_object"]
    key = f"{server.url} {configured.llm_small_model}"
    assert LessonBook.shared(lessons).pace(key) is not None


async def test_a_service_that_keeps_lessons_measures_its_model_before_the_first_turn(settings, tmp_path):
    with openai_server(token_interval_s=0.01) as server:
        llm = service(settings, server.url, llm_lessons_file=tmp_path / "lessons.json", llm_large_model="gpt-4o-mini")
        llm.warm_up_soon()
        llm.warm_up_soon()  # a second worker of the same process: measured once
        await asyncio.gather(*llm._warming)
        # One token of warm-up (a server's first request pays for loading the model), then the measurement.
        warm_up, measured = server.chat_requests()
        assert warm_up["body"]["max_tokens"] == 1 and measured["body"]["stream"]
        key = f"{server.url} {llm.settings.llm_small_model}"
        assert LessonBook.shared(tmp_path / "lessons.json").pace(key) is not None
        llm.warm_up_soon()  # known now: not measured again
        await asyncio.gather(*llm._warming)
    assert len(server.chat_requests()) == 2


async def test_an_answer_still_going_past_its_budget_ends_where_it_is_and_says_so(settings):
    notices: list[str] = []
    prompt = build_prompt("inquire", AnswerInputs(query="How long are records kept?", passages=MANY[:1]))
    with openai_server(token_interval_s=0.05, extra_words=200) as server:
        llm = service(settings, server.url, notices, llm_answer_budget_s=0.2)
        text = "".join([d async for d in llm.stream("inquire", prompt)])
    assert text and "word199" not in text
    assert notices == ["The model stopped mid-answer, so this answer may be incomplete."]


AUDIT = build_prompt(
    "audit",
    AuditInputs(
        themes=["Customer records must be deleted within five years."],
        targets=[AuditTarget(document_id="doc-policy", document="Retention Policy (v1)", evidence=[MANY[:1]])],
    ),
)


async def test_an_audit_is_streamed_and_ended_at_the_answer_budget(settings):
    """An audit's JSON is one structured answer: bounded by the answer budget like a streamed answer,
    not by the request timeout (a minute, and twice that with its corrective retry)."""
    notices: list[str] = []
    with openai_server(latency_s=2.0) as server:
        llm = service(settings, server.url, notices, llm_answer_budget_s=0.3)
        result = await llm.structured("audit", AuditOutput, AUDIT)
        (request,) = server.chat_requests()
    assert request["body"]["stream"]  # closing the stream stops a server that is still writing
    assert notices and "would take too long" in notices[0] and llm.engine("audit") == "offline-extractive"
    assert result.findings is not None


async def test_a_corrective_retry_shares_its_tasks_budget(settings):
    notices: list[str] = []
    with openai_server(latency_s=0.3, faults=["malformed"]) as server:
        llm = service(settings, server.url, notices, llm_step_budget_s=0.4)
        result = await llm.structured("intent", IntentOutput, INTENT)
    # With a budget of its own the retry would be asked, and the double's second answer is valid; in what
    # is left of the step's budget it is either not asked (the measured pace says it cannot fit) or cut.
    assert result.actions == ["inquire"] and notices == [SLOW_STEP]


async def test_an_answer_stream_that_stalls_before_its_first_word_is_ended_at_its_budget(settings):
    notices: list[str] = []
    prompt = build_prompt("inquire", AnswerInputs(query="How long are records kept?", passages=MANY[:1]))
    with openai_server(latency_s=2.0) as server:
        llm = service(settings, server.url, notices, llm_answer_budget_s=0.2)
        text = "".join([d async for d in llm.stream("inquire", prompt)])
    assert text.startswith("Customer records are kept for five years")  # the offline engine's answer
    assert len(notices) == 1 and "would take too long" in notices[0]


async def test_an_answer_asked_while_its_model_is_measured_waits_and_is_fitted(settings, tmp_path, caplog):
    caplog.set_level(logging.INFO)
    prompt = build_prompt("inquire", AnswerInputs(query="How long are records kept?", passages=MANY))
    with openai_server(latency_s=0.2, token_interval_s=0.01) as server:
        lessons = tmp_path / "lessons.json"
        one_model = {"llm_large_model": settings.llm_small_model}  # one model to measure, not two
        llm = service(settings, server.url, llm_lessons_file=lessons, llm_answer_budget_s=4.0, **one_model)
        llm.warm_up_soon()
        assert "".join([d async for d in llm.stream("inquire", prompt)])
        warm_up, measured, answer = server.chat_requests()
    assert warm_up["body"]["max_tokens"] == 1 and measured["body"]["max_tokens"] == 16
    # Fitted to the measured pace (the double's 0.2 s before its first word, 0.01 s a word after it).
    assert answer["body"]["max_tokens"] < max_tokens_for("inquire", llm.settings)
    assert len(user_text(answer)) < len(" ".join(p.text for p in MANY)) / 2
    # One log line per model call (the warm-up and the measurement are not turns' calls).
    assert len([r for r in caplog.records if r.getMessage().startswith("model call inquire [stream]")]) == 1
