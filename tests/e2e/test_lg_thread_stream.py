"""LangGraph's v3 thread protocol on `/lg`, driven by the real SDKs' `threads.stream()` against
`policypal up`: the Python `langgraph-sdk` (0.4.14, over SSE and over its WebSocket transport) and,
under Node, `@langchain/langgraph-sdk` 1.15 (the npm registry's newest; 2.0.0 has no `threads.stream()`)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from langgraph_sdk.stream.transport import ProtocolSseTransport
from websockets.asyncio.client import connect as websocket_connect
from websockets.exceptions import ConnectionClosed

from tests.e2e.test_langgraph_sdk import FIRST, SECOND, _workers, frozen, human, js_flow, lg, policy, run

pytestmark = pytest.mark.e2e
__all__ = ["policy"]  # the module fixture, shared with the classic SDK tests

CHANNELS = ["values", "updates", "messages", "lifecycle", "input", "custom"]
JS_THREAD_SDK = "@langchain/langgraph-sdk@1.15.0"


def _data(events: list[dict], method: str, event: str | None = None) -> list[dict]:
    return [
        e["params"]["data"]
        for e in events
        if e["method"] == method and (event is None or e["params"]["data"].get("event") == event)
    ]


async def _replay(client, tid: str, since: int, count: int) -> list[dict]:
    """What the SDK's own transport reads when it reconnects with `since`: the next `count` events."""
    transport = ProtocolSseTransport(client=client.http.client, thread_id=tid)
    handle = transport.open_event_stream({"channels": CHANNELS, "since": since})
    got: list[dict] = []
    try:
        await handle.ready
        async for event in handle.events:
            got.append(event)
            if len(got) == count:
                break
    finally:
        await handle.close()
        await transport.close()
    return got


def _same(event: dict) -> tuple:
    return event["event_id"], event["seq"], event["method"], json.dumps(event["params"]["data"], sort_keys=True)


def test_python_thread_stream_runs_streams_tokens_and_reconnects_without_duplicates(system, policy):
    async def flow():
        client = lg(system)
        async with client.threads.stream(assistant_id="policypal") as thread:
            started = await thread.run.start(input=human(FIRST, policy, action="inquire"))
            events = [e async for e in thread.subscribe(CHANNELS)]
            output = await thread.output
            tid = thread.thread_id
        state = await client.threads.get_state(tid)
        # Reconnect inside a bus event (the second protocol event made from it) and at the end of one.
        inside = next(k for k, e in enumerate(events[:-1]) if e["seq"] // 16 == events[k + 1]["seq"] // 16)
        replays = {k: await _replay(client, tid, events[k]["seq"], len(events) - k - 1) for k in (inside, 2)}
        return tid, started, events, output, state, replays

    tid, started, events, output, state, replays = run(flow())
    assert started["run_id"]
    lifecycle = [d["event"] for d in _data(events, "lifecycle")]
    assert lifecycle == ["started", "completed"] and events[-1]["method"] == "lifecycle"
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert [e["event_id"] for e in events] == [str(s) for s in seqs]
    answer = output["messages"][-1]
    assert output == state["values"] and [m["type"] for m in output["messages"]] == ["human", "ai"]
    assert "twelve months" in answer["content"] and answer["additional_kwargs"]["citations"]
    messages = _data(events, "messages")
    assert messages[0] == {
        "event": "message-start",
        "role": "ai",
        "id": answer["id"],
        "metadata": {"run_id": started["run_id"], "thread_id": tid, "langgraph_node": "inquire"},
    }
    deltas = "".join(d["delta"]["text"] for d in messages if d["event"] == "content-block-delta")
    assert deltas and answer["content"].startswith(deltas[:40])
    assert [d["event"] for d in messages[-2:]] == ["content-block-finish", "message-finish"]
    assert messages[-2]["content"]["text"] == answer["content"]
    assert [d["node"] for d in _data(events, "updates")][0] == "doc_resolver"
    assert _data(events, "values")[-1] == output
    assert {d["name"] for d in _data(events, "custom")} >= {"status", "token", "response"}
    for k, replay in replays.items():  # exactly what came after `since`: nothing twice, nothing lost
        assert [_same(e) for e in replay] == [_same(e) for e in events[k + 1 :]], k


def test_python_thread_stream_interrupt_and_its_resume(system, policy):
    async def flow():
        client = lg(system)
        async with client.threads.stream(assistant_id="policypal") as thread:
            await thread.run.start(input=human("Summarize and audit the tagged policy", policy))
            await asyncio.wait_for(_interrupted(thread), timeout=300)
            asked = list(thread.interrupts)
            waiting = await client.threads.get(thread.thread_id)
            await thread.run.respond({"decisions": [{"type": "approve"}]})
            output = await thread.output
        return asked, waiting, output

    asked, waiting, output = run(flow())
    assert len(asked) == 1 and asked[0]["namespace"] == []
    value = asked[0]["value"]
    assert value["interrupt_type"] == "action_choice" and value["action_requests"][0]["name"] == "action_choice"
    assert waiting["status"] == "interrupted" and next(iter(waiting["interrupts"])) == asked[0]["interrupt_id"]
    assert output["messages"][-1]["response_metadata"]["action"] == "summarize"  # approve = the offered default


async def _interrupted(thread) -> None:
    while not thread.interrupted:
        await asyncio.sleep(0.1)


@pytest.mark.parametrize("transport", ["sse", "websocket"])
def test_a_stream_opened_after_the_interrupt_sees_it_and_resumes(system, policy, transport):
    """The SDKs subscribe without `since` once `run.start` is answered: under load the run may reach
    its interrupt first. A stream opened on a thread that waits on its interrupt reads that run, so
    `thread.interrupted` comes true (it used to wait forever: the stream started from "now")."""

    async def flow():
        client = lg(system)
        tid = (await client.threads.create())["thread_id"]
        await client.runs.create(tid, "policypal", input=human("Summarize and audit the tagged policy", policy))
        for _ in range(600):
            if (await client.threads.get(tid))["status"] == "interrupted":
                break
            await asyncio.sleep(0.1)
        key = {"X-Api-Key": system.token}
        async with client.threads.stream(
            thread_id=tid, assistant_id="policypal", transport=transport, headers=key
        ) as thread:
            await asyncio.wait_for(_interrupted(thread), timeout=60)
            asked = list(thread.interrupts)
            await thread.run.respond({"decisions": [{"type": "approve"}]})
            output = await thread.output
        return asked, output

    asked, output = run(flow())
    assert len(asked) == 1 and asked[0]["value"]["interrupt_type"] == "action_choice", asked
    assert output["messages"][-1]["response_metadata"]["action"] == "summarize"


def test_python_thread_stream_cancel_then_the_thread_goes_on(system, policy):
    async def flow():
        client = lg(system)
        resolvers = _workers(system, "worker", "resolver")
        async with client.threads.stream(assistant_id="policypal") as thread:
            with frozen(resolvers):
                started = await thread.run.start(input=human(FIRST, policy, action="inquire"))
                await client.runs.cancel(thread.thread_id, started["run_id"])
            failed = None
            try:
                await thread.output
            except RuntimeError as exc:
                failed = exc
            tid = thread.thread_id
        async with client.threads.stream(tid, assistant_id="policypal") as again:
            await again.run.start(input=human(SECOND, policy, action="inquire"))
            output = await again.output
        return failed, output, await client.runs.list(tid)

    failed, output, runs = run(flow())
    assert failed is not None and "cancelled" in str(failed)
    assert "thirty days" in output["messages"][-1]["content"]
    assert [r["status"] for r in runs] == ["success", "interrupted"]


async def _parts_until_answered(parts, after: int = 0) -> list:
    """A thread's join stream stays open: read it up to the answer's `values`."""
    got = []
    async for part in parts:
        got.append(part)
        if part.event == "values" and len(part.data["messages"]) == 2 and len(got) > after:
            return got
    return got


def test_python_join_thread_stream_from_its_start_and_after_an_event(system, policy):
    async def flow():
        client = lg(system)
        tid = (await client.threads.create())["thread_id"]
        started = await client.runs.create(
            tid, "policypal", input=human(FIRST, policy, action="inquire"), stream_mode=["values", "updates"]
        )
        parts = await _parts_until_answered(await client.threads.join_stream(tid, last_event_id="0"))  # from the start
        k = len(parts) // 2
        again = await _parts_until_answered(await client.threads.join_stream(tid, last_event_id=parts[k].id))
        return started, parts, k, again

    started, parts, k, again = run(flow())
    assert parts[0].event == "metadata" and parts[0].data["run_id"] == started["run_id"]
    assert {p.event for p in parts} == {"metadata", "values", "updates"}
    assert "twelve months" in parts[-1].data["messages"][-1]["content"]
    ids = [p.id for p in parts]
    assert len(set(ids)) == len(ids) and all(ids)
    assert [(p.id, p.event, p.data) for p in again] == [(p.id, p.event, p.data) for p in parts[k + 1 :]]


def test_protocol_refusals_are_precise(system, policy):
    def command(tid: str, body: Any) -> httpx.Response:
        return httpx.post(
            f"{system.url}/lg/threads/{tid}/commands", json=body, headers={"X-Api-Key": system.token}, timeout=30
        )

    tid = "0b7a8f5e-9d3c-4c1e-8a52-3f6f0d1c2b10"
    unknown = command(tid, {"id": 1, "method": "run.teleport", "params": {}})
    assert unknown.status_code == 400 and unknown.json()["error"] == "unknown_command" and unknown.json()["id"] == 1
    bad_input = command(tid, {"id": 2, "method": "run.start", "params": {"assistant_id": "policypal", "input": {}}})
    assert bad_input.status_code == 422 and bad_input.json()["error"] == "invalid_argument"
    no_text = command(
        tid,
        {"id": 3, "method": "run.start", "params": {"assistant_id": "policypal", "input": {"messages": [{"x": 1}]}}},
    )
    assert no_text.status_code == 422 and no_text.json()["message"].startswith("params.input.messages.0")
    refused_left_nothing = httpx.get(f"{system.url}/lg/threads/{tid}", headers={"X-Api-Key": system.token})
    assert refused_left_nothing.status_code == 404
    created = httpx.post(f"{system.url}/lg/threads", json={}, headers={"X-Api-Key": system.token}).json()
    idle = created["thread_id"]
    answer = {"namespace": [], "interrupt_id": "not-pending", "response": "summarize"}
    not_asked = command(idle, {"id": 6, "method": "input.respond", "params": answer})
    assert not_asked.status_code == 404 and not_asked.json()["error"] == "no_such_interrupt"
    waits = httpx.post(
        f"{system.url}/lg/threads/{idle}/runs/wait",
        json={"input": human("Summarize and audit the tagged policy", policy)},
        headers={"X-Api-Key": system.token},
        timeout=300,
    ).json()["__interrupt__"][0]["id"]
    teleport = {"namespace": [], "interrupt_id": waits, "response": "teleport"}
    bad_answer = command(idle, {"id": 10, "method": "input.respond", "params": teleport})
    assert bad_answer.status_code == 422 and bad_answer.json()["message"].startswith("params.response"), bad_answer.text
    no_id = command(idle, {"id": 7, "method": "input.respond", "params": {"response": "summarize"}})
    assert no_id.status_code == 422 and "interrupt_id" in no_id.json()["message"]
    subscribe = command(idle, {"id": 8, "method": "subscription.subscribe", "params": {"channels": ["values"]}})
    assert subscribe.status_code == 400 and subscribe.json()["error"] == "not_supported"
    tree = command(idle, {"id": 9, "method": "agent.getTree", "params": {}})
    assert tree.json() == {
        "type": "success",
        "id": 9,
        "result": {"tree": {"namespace": [], "status": "interrupted", "graph_name": "policypal"}},
    }
    nothing = command(
        "5d0c7b1e-2f4a-4b7e-9c3d-8e1f2a3b4c5d", {"id": 4, "method": "state.get", "params": {"namespace": []}}
    )
    assert nothing.status_code == 404 and nothing.json()["type"] == "error"
    other = command(tid, {"id": 5, "method": "run.start", "params": {"assistant_id": "someone-else"}})
    assert other.status_code == 404
    stream = httpx.post(
        f"{system.url}/lg/threads/{tid}/stream/events",
        json={"channels": ["values", "telepathy"]},
        headers={"X-Api-Key": system.token},
    )
    assert stream.status_code == 422 and "telepathy" in stream.json()["error"]["message"]


def test_js_thread_stream_runs_interrupts_and_resumes(system, policy):
    out = js_flow(system, policy, JS_THREAD_SDK, "langgraph_thread_stream.mjs")

    assert out["runId"] and out["lifecycle"][0] == "started" and out["lifecycle"][-1] == "completed"
    answer = out["output"]["messages"][-1]
    assert "twelve months" in answer["content"]
    assert out["messageIds"] == [answer["id"]] and answer["content"].startswith(out["deltas"][:40])
    assert out["interrupted"] is True and out["interrupt"]["payload"]["interrupt_type"] == "action_choice"
    assert out["resumedAction"] == "summarize"


def test_js_thread_commands_inject_list_checkpoints_and_refuse_precisely(system, policy):
    out = js_flow(system, policy, JS_THREAD_SDK, "langgraph_thread_commands.mjs")

    # The message injected while the second run went on is the thread's next turn, answered after it.
    assert out["runs"] == ["success"] * 3
    assert [(m["type"], m["content"]) for m in out["messages"][4:5]] == [("human", "How long is CCTV footage kept?")]
    assert [m["type"] for m in out["messages"]] == ["human", "ai"] * 3
    # Newest first, paged with `before`, each with its parent: the head is the newest.
    first, second = out["pages"]
    listed = first + second
    assert len(first) == 3 and second and out["head"]["id"] == first[0]["id"]
    ids = [c["id"] for c in listed]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == len(ids)
    assert all(c["parent_id"] == after["id"] for c, after in zip(listed, listed[1:], strict=False))
    assert all(c["timestamp"] and isinstance(c["step"], int) and c["metadata"]["run_id"] for c in listed)
    refused = out["refused"]  # each a 4xx carrying the protocol's error envelope
    assert all(r["type"] == "error" and isinstance(r["id"], int) for r in refused.values()), refused
    system_role, empty, nested, cursor = (refused[k] for k in ("system", "empty", "nested", "cursor"))
    assert system_role["status"] == 422 and system_role["error"] == "invalid_argument"
    assert system_role["message"].startswith("params.message.role")
    assert empty["status"] == 422 and empty["message"].startswith("params.message.content")
    assert nested["status"] == 404 and nested["error"] == "no_such_namespace"
    assert cursor["status"] == 422 and cursor["message"].startswith("params.before")


def test_python_thread_stream_over_websocket_runs_interrupts_and_resumes(system, policy):
    """The same protocol over the SDK's WebSocket transport (it sends the key in the handshake only
    when given as a header of the stream)."""

    async def flow():
        client = lg(system)
        key = {"X-Api-Key": system.token}
        async with client.threads.stream(assistant_id="policypal", transport="websocket", headers=key) as thread:
            await thread.run.start(input=human(FIRST, policy, action="inquire"))
            events = [e async for e in thread.subscribe(CHANNELS)]
            answered = await thread.output
        async with client.threads.stream(assistant_id="policypal", transport="websocket", headers=key) as thread:
            await thread.run.start(input=human("Summarize and audit the tagged policy", policy))
            await asyncio.wait_for(_interrupted(thread), timeout=300)
            asked = list(thread.interrupts)
            await thread.run.respond({"decisions": [{"type": "approve"}]})
            resumed = await thread.output
        return events, answered, asked, resumed

    events, answered, asked, resumed = run(flow())
    assert [d["event"] for d in _data(events, "lifecycle")] == ["started", "completed"]
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert "twelve months" in answered["messages"][-1]["content"] and _data(events, "values")[-1] == answered
    assert asked[0]["value"]["interrupt_type"] == "action_choice"
    assert resumed["messages"][-1]["response_metadata"]["action"] == "summarize"


def test_websocket_refusals_are_precise(system, policy):
    url = system.url.replace("http://", "ws://") + "/lg/threads/{}/stream/events"
    tid = httpx.post(f"{system.url}/lg/threads", json={}, headers={"X-Api-Key": system.token}).json()["thread_id"]

    async def flow():
        frames = []
        async with websocket_connect(url.format(tid), additional_headers={"X-Api-Key": system.token}) as ws:
            for command in (
                "not json",
                b"\xff binary",
                {"id": 1, "method": "subscription.unsubscribe", "params": {"subscription_id": "sub-9"}},
                {"id": 2, "method": "subscription.subscribe", "params": {"channels": ["telepathy"]}},
                {"id": 3, "method": "subscription.subscribe", "params": {"channels": ["values"]}},
                {"id": 4, "method": "agent.getTree", "params": {}},
            ):
                await ws.send(command if isinstance(command, str | bytes) else json.dumps(command))
                frames.append(json.loads(await ws.recv()))
            subscription = frames[-2]["result"]["subscription_id"]
            await ws.send(
                json.dumps({"id": 5, "method": "subscription.unsubscribe", "params": {"subscription_id": subscription}})
            )
            frames.append(json.loads(await ws.recv()))
        closes = []
        subscribe = json.dumps({"id": 1, "method": "subscription.subscribe", "params": {"channels": ["values"]}})
        for target, headers in ((tid, {}), ("5d0c7b1e-2f4a-4b7e-9c3d-8e1f2a3b4c5d", {"X-Api-Key": system.token})):
            async with websocket_connect(url.format(target), additional_headers=headers) as ws:
                with pytest.raises(ConnectionClosed) as closed:
                    await ws.send(subscribe)
                    while True:
                        await ws.recv()
                closes.append(closed.value.rcvd.code)
        return frames, closes

    frames, closes = run(flow())
    not_json, binary, unknown_sub, bad_channel, subscribed, tree, unsubscribed = frames
    assert not_json["type"] == "error" and not_json["id"] is None and not_json["error"] == "invalid_argument"
    assert binary["type"] == "error" and binary["id"] is None
    assert unknown_sub["id"] == 1 and unknown_sub["error"] == "no_such_subscription"
    assert bad_channel["id"] == 2 and "telepathy" in bad_channel["message"]
    assert subscribed["type"] == "success" and subscribed["result"]["subscription_id"]
    assert tree["result"]["tree"]["status"] == "completed"
    assert unsubscribed == {"type": "success", "id": 5, "result": {}}
    assert closes == [4401, 4404]  # no caller; a subscription to a thread that is not the caller's


def test_js_thread_stream_over_websocket_subscribes_and_refuses_on_the_socket(system, policy):
    """The JS SDK's WebSocket transport sends every command and `subscription.subscribe` on the socket
    (the key in its URL: a browser's WebSocket sends no headers); Node 20 needs its WebSocket flag."""
    out = js_flow(system, policy, JS_THREAD_SDK, "langgraph_thread_socket.mjs", node_options="--experimental-websocket")

    assert out["runId"] and out["lifecycle"][0] == "started" and out["lifecycle"][-1] == "completed"
    assert "twelve months" in out["answer"] and out["tokens"] > 0
    assert len(set(out["seqs"])) == len(out["seqs"])  # each event once, however many subscriptions
    assert out["tree"]["status"] == "completed"
    assert out["refused"] == {"name": "ProtocolError", "code": "no_such_interrupt"}  # typed: the socket's envelope
