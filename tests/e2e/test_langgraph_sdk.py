"""The LangGraph Agent Server surface (`/lg`) driven by the real clients against `policypal up`:
the Python `langgraph-sdk` and, under Node, the JS `@langchain/langgraph-sdk` from the npm registry."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import psutil
import pytest
from langgraph_sdk import get_client, get_sync_client
from langgraph_sdk.errors import ConflictError, NotFoundError

from tests.e2e.helpers import ingest_demo_policy, random_id

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
JS_SDK = "@langchain/langgraph-sdk@2.0.0"
JS_CACHE = ROOT / "build" / "langgraph-js"
MODES = ["values", "updates", "messages-tuple"]


@pytest.fixture(scope="module")
def policy(system) -> dict:
    with system.client() as client:
        return ingest_demo_policy(client)


def lg(system, token: str | None = None):
    return get_client(url=f"{system.url}/lg", api_key=token or system.token)


def human(text: str, policy: dict, **options) -> dict:
    return {"messages": [{"type": "human", "content": text}], "tagged_doc_ids": [policy["id"]], **options}


async def collect(parts: AsyncIterator) -> list:
    return [part async for part in parts]


def run(coro):
    return asyncio.run(coro)


def test_stream_values_updates_and_tokens_with_citations_then_search_state_and_history(system, policy):
    async def flow():
        client = lg(system)
        thread = await client.threads.create(metadata={"suite": "py-stream"})
        tid = thread["thread_id"]
        assert thread["status"] == "idle" and thread["metadata"]["graph_id"] == "policypal"
        created = {}
        parts = await collect(
            client.runs.stream(
                tid,
                "policypal",
                input=human("How long are job applicant records kept?", policy, action="inquire"),
                stream_mode=MODES,
                on_run_created=created.update,
            )
        )
        state = await client.threads.get_state(tid)
        history = await client.threads.get_history(tid, limit=5)
        found = await client.threads.search(metadata={"suite": "py-stream", "graph_id": "policypal"})
        runs = await client.runs.list(tid)
        return tid, created, parts, state, history, found, runs

    tid, created, parts, state, history, found, runs = run(flow())
    assert parts[0].event == "metadata" and parts[0].data == {"run_id": created["run_id"], "attempt": 1}
    assert created["thread_id"] == tid
    events = [p.event for p in parts]
    assert {"values", "updates", "messages"} <= set(events) and "error" not in events
    updates = [next(iter(p.data)) for p in parts if p.event == "updates"]
    # The action was given: no intent_resolver step (feature spec, PalReasoning: an explicit action skips it).
    assert updates[0] == "doc_resolver" and "intent_resolver" not in updates
    assert "inquire" in updates and updates[-1] == "format_response"
    final = [p.data for p in parts if p.event == "values"][-1]["messages"]
    assert [m["type"] for m in final] == ["human", "ai"]
    answer = final[-1]
    assert "twelve months" in answer["content"]
    citation = answer["additional_kwargs"]["citations"][0]
    assert citation["document_id"] == policy["id"] and citation["page"] == 1
    assert answer["response_metadata"]["action"] == "inquire"
    tokens = [p.data for p in parts if p.event == "messages"]
    assert tokens and all(chunk["id"] == answer["id"] for chunk, _ in tokens)
    assert "".join(chunk["content"] for chunk, _ in tokens).startswith(answer["content"][:40])
    assert tokens[0][1]["langgraph_node"] == "inquire"
    # Every event can be resumed from, and no two share an id: the metadata's -1 starts over.
    ids = [p.id for p in parts]
    assert ids[0] == "-1" and all(float(i) > 0 for i in ids[1:]) and len(set(ids)) == len(ids), ids

    assert state["values"]["messages"] == final and state["next"] == [] and state["checkpoint"]["checkpoint_id"]
    assert history and history[0]["checkpoint"] == state["checkpoint"] and len(history) <= 5
    assert [t["thread_id"] for t in found] == [tid]
    assert runs[0]["run_id"] == created["run_id"] and runs[0]["status"] == "success"


def test_interrupt_resumed_with_command_and_with_agent_chat_ui_decisions(system, policy):
    async def flow():
        client = lg(system)
        tid = (await client.threads.create())["thread_id"]
        ask = human("Summarize and audit the tagged policy", policy)
        asked = await collect(client.runs.stream(tid, "policypal", input=ask, stream_mode=["values", "updates"]))
        waiting = await client.threads.get(tid)
        answered = await collect(
            client.runs.stream(tid, "policypal", command={"resume": "summarize"}, stream_mode="values")
        )
        again = await collect(client.runs.stream(tid, "policypal", input=ask, stream_mode="updates"))
        rejected = await client.runs.wait(tid, "policypal", command={"resume": {"decisions": [{"type": "reject"}]}})
        nothing_pending = None
        try:
            await client.runs.wait(tid, "policypal", command={"resume": "summarize"})
        except httpx.HTTPStatusError as exc:  # runs.wait raises httpx's error, not the SDK's typed one
            nothing_pending = exc
        return asked, waiting, answered, again, rejected, nothing_pending

    asked, waiting, answered, again, rejected, nothing_pending = run(flow())
    interrupt = next(p.data["__interrupt__"] for p in asked if p.event == "updates" and "__interrupt__" in p.data)
    value = interrupt[0]["value"]
    assert interrupt[0]["id"] and value["interrupt_type"] == "action_choice"
    assert [o["id"] for o in value["options"]] == ["summarize", "audit"]
    # The same question as Agent Chat UI's HITLRequest.
    assert value["action_requests"] == [
        {
            "name": "action_choice",
            "args": {"choice": "summarize"},
            "description": value["action_requests"][0]["description"],
        }
    ]
    assert value["review_configs"][0]["allowed_decisions"] == ["approve", "edit", "reject"]
    assert [p.data for p in asked if p.event == "values"][-1]["__interrupt__"] == interrupt
    assert waiting["status"] == "interrupted" and list(waiting["interrupts"].values())[0] == interrupt

    summary = [p.data for p in answered if p.event == "values"][-1]["messages"][-1]
    assert summary["type"] == "ai" and summary["response_metadata"]["action"] == "summarize"
    assert summary["additional_kwargs"]["citations"]

    assert any("__interrupt__" in p.data for p in again if p.event == "updates")
    assert "__interrupt__" not in rejected
    assert rejected["messages"][-1]["response_metadata"]["cancelled"] is True
    assert nothing_pending is not None and nothing_pending.response.status_code == 409
    assert nothing_pending.response.json()["error"]["code"] == "no_pending_interrupt"


def test_join_after_disconnect_with_last_event_id_loses_nothing(system, policy):
    async def flow():
        client = lg(system)
        tid = (await client.threads.create())["thread_id"]
        start = client.runs.stream(
            tid,
            "policypal",
            input=human("How are hard drives disposed of?", policy, action="inquire"),
            stream_mode=MODES,
        )
        head = []
        async for part in start:
            head.append(part)
            if part.event == "updates":
                break  # the client goes away mid-run; the run goes on
        await start.aclose()
        run_id = head[0].data["run_id"]
        tail = await collect(client.runs.join_stream(tid, run_id, last_event_id=head[-1].id, stream_mode=MODES))
        whole = await collect(client.runs.join_stream(tid, run_id, last_event_id="-1", stream_mode=MODES))
        live_after_end = await collect(client.runs.join_stream(tid, run_id))
        joined = await client.runs.join(tid, run_id)
        return head, tail, whole, live_after_end, joined, await client.runs.get(tid, run_id)

    head, tail, whole, live_after_end, joined, finished = run(flow())
    assert (
        tail and tail[-1].event == "values" and "certificate of destruction" in tail[-1].data["messages"][-1]["content"]
    )
    assert whole[0].event == "metadata"
    cut = next(i for i, p in enumerate(whole) if p.id == head[-1].id)
    assert [(p.event, p.data) for p in whole[cut + 1 :]] == [(p.event, p.data) for p in tail]
    assert live_after_end == [] and finished["status"] == "success"
    assert joined["messages"][-1] == tail[-1].data["messages"][-1]


def _workers(system, *needle: str) -> list[psutil.Process]:
    up = psutil.Process(system.process.pid)
    found = [child for child in up.children(recursive=True) if all(n in child.cmdline() for n in needle)]
    assert found, f"no worker with {needle}"
    return found


@contextmanager
def frozen(processes: list[psutil.Process]) -> Iterator[None]:
    """SIGSTOP: the workers hold their commands, so a run stays in progress for as long as the test needs."""
    for process in processes:
        process.send_signal(signal.SIGSTOP)
    try:
        yield
    finally:
        for process in processes:
            process.send_signal(signal.SIGCONT)


async def start(client, tid: str, text: str, policy: dict, strategy: str = "reject") -> dict:
    return await client.runs.create(
        tid, "policypal", input=human(text, policy, action="inquire"), multitask_strategy=strategy
    )


async def thaw_soon(processes: list[psutil.Process], after_s: float = 1.0) -> None:
    await asyncio.sleep(after_s)
    for process in processes:
        process.send_signal(signal.SIGCONT)


FIRST, SECOND = "How long are job applicant records kept?", "What about CCTV footage?"


def test_multitask_reject_and_enqueue(system, policy):
    async def flow():
        client = lg(system)
        tid = (await client.threads.create())["thread_id"]
        with frozen(_workers(system, "worker", "resolver")):
            first = await start(client, tid, FIRST, policy)
            busy = await client.threads.get(tid)
            refused = None
            try:
                await start(client, tid, SECOND, policy)
            except ConflictError as exc:
                refused = exc
            queued = await start(client, tid, SECOND, policy, "enqueue")
            queued_seen = await client.runs.get(tid, queued["run_id"])
        await client.runs.join(tid, first["run_id"])
        values = await client.runs.join(tid, queued["run_id"])
        return first, busy, refused, queued, queued_seen, values, await client.runs.list(tid)

    first, busy, refused, queued, queued_seen, values, runs = run(flow())
    assert first["status"] == "running" and busy["status"] == "busy"
    assert refused is not None and refused.response.status_code == 409
    assert queued["status"] == "pending" and queued_seen["status"] == "pending"
    contents = [m["content"] for m in values["messages"]]
    assert contents[0] == FIRST and "twelve months" in contents[1]
    assert contents[2] == SECOND and "thirty days" in contents[3]
    assert {r["run_id"]: r["status"] for r in runs} == {first["run_id"]: "success", queued["run_id"]: "success"}


@pytest.mark.parametrize("strategy", ["interrupt", "rollback"])
def test_multitask_interrupt_stops_the_running_run_and_rollback_also_erases_it(system, policy, strategy):
    async def flow():
        client = lg(system)
        tid = (await client.threads.create())["thread_id"]
        resolvers = _workers(system, "worker", "resolver")
        with frozen(resolvers):
            first = await start(client, tid, FIRST, policy)
            # The newer run waits for the stop, which the frozen resolver can only make once thawed.
            second, _ = await asyncio.gather(start(client, tid, SECOND, policy, strategy), thaw_soon(resolvers))
        values = await client.runs.join(tid, second["run_id"])
        try:
            displaced = await client.runs.get(tid, first["run_id"])
        except NotFoundError:
            displaced = None
        state = await client.threads.get_state(tid)
        return first, second, values, displaced, state

    first, second, values, displaced, state = run(flow())
    assert first["status"] == "running"
    messages = values["messages"]
    assert messages[-2]["content"] == SECOND and "thirty days" in messages[-1]["content"]
    assert state["values"]["messages"] == messages and state["next"] == []
    if strategy == "interrupt":
        assert displaced["status"] == "interrupted"
        assert messages[0]["content"] == FIRST and messages[1]["response_metadata"]["stopped"] is True
        assert len(messages) == 4
    else:  # the first run is gone: its record, its messages and its checkpoints
        assert displaced is None and len(messages) == 2


def test_cancel_a_running_run_then_the_thread_goes_on(system, policy):
    async def flow():
        client = lg(system)
        tid = (await client.threads.create())["thread_id"]
        resolvers = _workers(system, "worker", "resolver")
        with frozen(resolvers):
            doomed = await start(client, tid, FIRST, policy)
            cancelled = await client.runs.cancel(tid, doomed["run_id"])  # asked while the worker holds it
        await client.runs.join(tid, doomed["run_id"])
        stopped = await client.runs.get(tid, doomed["run_id"])
        later = await client.runs.wait(tid, "policypal", input=human(SECOND, policy, action="inquire"))
        with frozen(resolvers):
            erased = await start(client, tid, FIRST, policy)
            rolled_back, _ = await asyncio.gather(
                client.runs.cancel(tid, erased["run_id"], action="rollback"), thaw_soon(resolvers)
            )
        after = await client.threads.get_state(tid)
        not_running = None
        try:
            await client.runs.cancel(tid, doomed["run_id"])
        except ConflictError as exc:
            not_running = exc
        return cancelled, stopped, later, rolled_back, after, not_running, await client.runs.list(tid)

    cancelled, stopped, later, rolled_back, after, not_running, runs = run(flow())
    assert cancelled["status"] == "running" and stopped["status"] == "interrupted"
    assert "thirty days" in later["messages"][-1]["content"]  # a later message on the thread works
    assert rolled_back is None and after["values"]["messages"] == later["messages"] and after["next"] == []
    assert not_running is not None and not_running.response.status_code == 409
    assert [r["status"] for r in runs] == ["success", "interrupted"]


def registered_tenant(system) -> str:
    """A second real tenant, created by the platform operator through the API."""
    with system.client(token=system.mint("--user", "root", "--role", "operator")) as ops:
        created = ops.post("/v1/admin/tenants", json={"name": "Other Co"})
    assert created.status_code == 201, created.text
    return created.json()["id"]


def test_another_tenant_or_user_gets_404_on_every_thread_and_run_path(system, policy):
    async def flow():
        owner = lg(system)
        tid = (await owner.threads.create())["thread_id"]
        done = await owner.runs.wait(tid, "policypal", input=human("Hi", policy, action="inquire"))
        run_id = (await owner.runs.list(tid))[0]["run_id"]
        results = {}
        other_tenant = registered_tenant(system)
        for who, token in (
            ("tenant", system.mint("--tenant", other_tenant, "--user", "eve")),
            ("user", system.mint("--user", "mallory")),
        ):
            http = lg(system, token).http.client
            body = {"assistant_id": "policypal", "input": human("Hi", policy)}
            calls = [
                ("GET", f"/threads/{tid}", None),
                ("PATCH", f"/threads/{tid}", {"metadata": {"x": 1}}),
                ("GET", f"/threads/{tid}/state", None),
                ("POST", f"/threads/{tid}/history", {"limit": 1}),
                ("POST", f"/threads/{tid}/runs", body),
                ("POST", f"/threads/{tid}/runs/stream", body),
                ("POST", f"/threads/{tid}/runs/wait", body),
                ("POST", f"/threads/{tid}/runs/stream", {"assistant_id": "policypal", "command": {"resume": "x"}}),
                ("GET", f"/threads/{tid}/runs", None),
                ("GET", f"/threads/{tid}/runs/{run_id}", None),
                ("GET", f"/threads/{tid}/runs/{run_id}/join", None),
                ("POST", f"/threads/{tid}/runs/{run_id}/join", None),
                ("GET", f"/threads/{tid}/runs/{run_id}/stream", None),
                ("POST", f"/threads/{tid}/runs/{run_id}/cancel", None),
                ("DELETE", f"/threads/{tid}", None),
            ]
            for method, path, json_body in calls:
                response = await http.request(method, path, json=json_body, headers={"Last-Event-ID": "-1"})
                results[(who, method, path)] = response.status_code
            results[(who, "search")] = len(await lg(system, token).threads.search(ids=[tid]))
        still_there = await owner.threads.get(tid)
        return done, results, still_there

    done, results, still_there = run(flow())
    assert done["messages"][-1]["type"] == "ai"
    searches = {k: v for k, v in results.items() if k[1] == "search"}
    assert searches and all(count == 0 for count in searches.values())
    statuses = {k: v for k, v in results.items() if k[1] != "search"}
    assert statuses and all(code == 404 for code in statuses.values()), statuses
    assert still_there["thread_id"]


def test_validation_errors_name_the_field(system, policy):
    async def flow():
        http = lg(system).http.client
        tid = (await lg(system).threads.create())["thread_id"]
        answers = {}
        for name, body in {
            "no input": {"assistant_id": "policypal"},
            "last message not human": {"input": {"messages": [{"type": "ai", "content": "hi"}]}},
            "unknown stream mode": {"input": human("hi", policy), "stream_mode": "nope"},
            "unknown assistant": {"assistant_id": "agent", "input": human("hi", policy)},
        }.items():
            response = await http.post(f"/threads/{tid}/runs/stream", json=body)
            answers[name] = (response.status_code, response.json()["error"]["message"])
        missing_thread = await http.post(f"/threads/{random_id()}/runs", json={"input": human("hi", policy)})
        created = await http.post(
            f"/threads/{random_id()}/runs/wait", json={"input": human("hi", policy), "if_not_exists": "create"}
        )
        return answers, missing_thread.status_code, created.status_code

    answers, missing_thread, created = run(flow())
    assert answers["no input"][0] == 422 and "input" in answers["no input"][1]
    assert answers["last message not human"][0] == 422 and "input.messages" in answers["last message not human"][1]
    assert answers["unknown stream mode"][0] == 422
    assert answers["unknown assistant"][0] == 404
    assert missing_thread == 404 and created == 200


def test_requests_are_read_as_langgraph_api_reads_them(system, policy):
    """Agent Chat UI's proxy sends JSON as text/plain; newer clients send fields we do not know; the
    sync client's runs.wait sends raise_error. Every run's checkpoints carry its run_id."""
    sync = get_sync_client(url=f"{system.url}/lg", api_key=system.token)
    tid = sync.threads.create()["thread_id"]
    values = sync.runs.wait(tid, "policypal", input=human("How long are job applicant records kept?", policy))
    assert values["messages"][-1]["type"] == "ai" and "twelve months" in values["messages"][-1]["content"]
    body = {"input": human("What about CCTV footage?", policy), "some_future_field": {"x": 1}}
    with system.client() as http:
        plain = http.post(
            f"/lg/threads/{tid}/runs/wait",
            content=json.dumps(body),
            headers={"Content-Type": "text/plain;charset=UTF-8"},
        )
        assert plain.status_code == 200, plain.text
        assert "thirty days" in plain.json()["messages"][-1]["content"]
        history = http.post(f"/lg/threads/{tid}/history", json={"limit": 50}).json()
    runs = {r["run_id"] for r in sync.runs.list(tid)}
    stamped = {c["metadata"].get("run_id") for c in history}
    assert len(runs) == 2 and runs <= stamped
    assert all(c["metadata"]["graph_id"] == "policypal" and c["metadata"]["assistant_id"] for c in history)


def test_agent_chat_ui_edit_with_string_ids_and_mark_as_resolved(system, policy):
    """The compare question answered as Agent Chat UI's edit form sends it: a malformed id is a 422
    naming the field; a well-formed one the comparison cannot use ends the run with a readable
    error and the question still open; "Mark as resolved" (goto __end__) closes it."""
    client = get_sync_client(url=f"{system.url}/lg", api_key=system.token)
    tid = client.threads.create()["thread_id"]
    asked = client.runs.wait(tid, "policypal", input=human("Compare these", policy, action="compare"))
    assert asked["__interrupt__"][0]["value"]["interrupt_type"] == "doc_choice"

    def edit(ids: str) -> dict:
        args = {"document_ids": ids}
        return {"resume": {"decisions": [{"type": "edit", "edited_action": {"name": "doc_choice", "args": args}}]}}

    with pytest.raises(httpx.HTTPStatusError) as refused:
        client.runs.wait(tid, "policypal", command=edit('["92be", "59a0"]'))
    error = refused.value.response.json()["error"]
    assert refused.value.response.status_code == 422
    assert error["details"] == {"field": "command.resume.decisions[0].edited_action.args.document_ids"}
    parts = list(client.runs.stream(tid, "policypal", command=edit(json.dumps([policy["id"]]))))
    failed = [p.data for p in parts if p.event == "error"]
    assert len(failed) == 1 and "compare needs 2 document(s)" in failed[0]["message"], parts
    waiting = client.threads.get(tid)
    assert waiting["status"] == "interrupted"
    closed = client.runs.wait(tid, "policypal", command={"goto": "__end__"})
    assert "__interrupt__" not in closed and closed["messages"][-1]["response_metadata"]["cancelled"] is True
    assert client.threads.get(tid)["status"] == "idle"


def node_sdk(spec: str, script: str) -> Path:
    """`spec` (`@langchain/langgraph-sdk@<version>`) from the npm registry into an ignored build folder of
    its own (no package.json), installed once per version; `script` (tests/e2e/js) copied beside it."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.fail("Node.js and npm are required for the JS langgraph-sdk tests (apt-get install nodejs npm)")
    version = spec.rsplit("@", 1)[1]
    cache = JS_CACHE / version
    installed = cache / "node_modules" / "@langchain" / "langgraph-sdk" / "package.json"
    if not installed.exists() or json.loads(installed.read_text())["version"] != version:
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [npm, "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(cache), spec],
            check=True,
            capture_output=True,
            timeout=300,
        )
    copied = cache / script
    shutil.copyfile(Path(__file__).parent / "js" / script, copied)  # resolves the SDK next to it
    return copied


def js_flow(system, policy: dict, spec: str, script: str, timeout_s: float = 400, node_options: str = "") -> dict:
    """Run a JS client flow (tests/e2e/js) with `spec` against `/lg`: the JSON object it prints last."""
    path = node_sdk(spec, script)
    env = {**os.environ, "PP_LG_URL": f"{system.url}/lg", "PP_TOKEN": system.token, "PP_DOC_ID": policy["id"]}
    if node_options:
        env["NODE_OPTIONS"] = f"{env.get('NODE_OPTIONS', '')} {node_options}".strip()
    done = subprocess.run(["node", str(path)], env=env, capture_output=True, text=True, timeout=timeout_s)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_js_sdk_streams_interrupts_resumes_and_joins(system, policy):
    out = js_flow(system, policy, JS_SDK, "langgraph_flow.mjs")

    assert out["created"]["thread_id"] == out["threadId"] and out["created"]["run_id"]
    assert (
        out["streamFirst"]["event"] == "metadata" and out["streamFirst"]["data"]["run_id"] == out["created"]["run_id"]
    )
    assert {"values", "updates", "messages"} <= set(out["streamEvents"])
    answer = out["streamValues"]["messages"][-1]
    assert "twelve months" in answer["content"] and answer["additional_kwargs"]["citations"]
    assert out["streamTokens"] and all(t["id"] == answer["id"] for t in out["streamTokens"])

    assert out["interrupt"][0]["value"]["action_requests"][0]["name"] == "action_choice"
    assert out["interruptedStatus"] == "interrupted"
    resumed = out["resumedValues"]["messages"][-1]
    assert resumed["response_metadata"]["action"] == "summarize"  # approve = the offered default

    assert out["background"]["status"] in ("pending", "running")
    assert out["joinedEvents"][0] == "metadata" and "messages" in out["joinedEvents"]
    assert "thirty days" in out["joinedValues"]["messages"][-1]["content"]
    assert out["joinValues"]["messages"][-1] == out["joinedValues"]["messages"][-1]
    assert out["run"]["status"] == "success" and out["found"] == [out["threadId"]]
