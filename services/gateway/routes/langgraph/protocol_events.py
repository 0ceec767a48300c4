"""PolicyPal thread events → the events of LangGraph's v3 thread protocol (`langchain-protocol`).

One bus event becomes a few protocol events, all at the root namespace `[]`:
- a run's first event opens it: `lifecycle {event: "started", graph_name}`;
- `status` → `updates {node, values: {status, docs_found?, web_query?}}`;
- `token` → `messages`: `message-start` and `content-block-start` before the answer's first token,
  then `content-block-delta {type: "text-delta"}` (the message id is the final answer's id);
- `response` → the message's `content-block-finish` and `message-finish`, `updates` of
  `format_response`, `values` (the thread's messages) and `lifecycle completed` (a run the user
  stopped: `failed` with error `cancelled`);
- `interrupt` / `escalation` → `values` with `__interrupt__`, `input.requested {interrupt_id,
  payload}` (and `value`, the name the Python SDK reads) and `lifecycle interrupted`;
- `error` → `lifecycle failed {error}`;
- and first, every bus event as it is on `custom`, named by its type (`custom:status`…).

Every protocol event has a `seq` of its own, so `since` resumes exactly after the last one a client
has: event k (from 0) of bus event N is `N * SLOTS + k`; `event_id` is the same number as text. The
translation needs what came before in the run (has the answer's message started?), so a stream
that resumes inside a run replays the run from its start and drops what is not after `since`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from services.gateway.routes.langgraph.interrupts import offered
from services.gateway.routes.langgraph.stream import answer_metadata
from services.gateway.routes.langgraph.values import lc_message
from shared.contracts import Question
from shared.contracts.langgraph import GRAPH_ID

# Protocol events per bus event at most (a `response` makes 8); `seq` = bus sequence * SLOTS + k.
SLOTS = 16


def bus_seq(since: int) -> int:
    """The bus event a protocol `seq` belongs to."""
    return since // SLOTS


@dataclass
class Emitted:
    seq: int
    method: str
    data: dict[str, Any]

    @property
    def channel(self) -> str:
        return "input" if self.method == "input.requested" else self.method

    def wire(self) -> dict[str, Any]:
        params = {"namespace": [], "timestamp": int(time.time() * 1000), "data": self.data}
        return {"type": "event", "event_id": str(self.seq), "seq": self.seq, "method": self.method, "params": params}


@dataclass
class ThreadProtocol:
    """Translates one thread's bus events, run after run, into protocol events."""

    thread_id: uuid.UUID
    values: Callable[[], Awaitable[dict[str, Any]]]
    interrupt_id: Callable[[], Awaitable[str]]
    answer_id: Callable[[uuid.UUID], Awaitable[str]]
    run_id: str | None = None
    node: str = ""
    started: set[str] = field(default_factory=set)  # answer messages whose `message-start` went out

    async def translate(self, seq: int, event: dict[str, Any]) -> list[Emitted]:
        out: list[tuple[str, dict[str, Any]]] = []
        run = str(event.get("run_id"))
        if run != self.run_id:
            self.run_id = run
            out.append(("lifecycle", {"event": "started", "graph_name": GRAPH_ID}))
        # The bus event itself before what it means: a run's terminal `lifecycle` is its last event.
        out.append(("custom", {"name": str(event.get("type")), "payload": event}))
        handler = getattr(self, f"_on_{event.get('type')}", None)
        if handler is not None:
            out += await handler(event)
        if len(out) > SLOTS:
            raise ValueError(f"{len(out)} protocol events for one bus event; at most {SLOTS}")
        return [Emitted(seq * SLOTS + k, method, data) for k, (method, data) in enumerate(out)]

    async def _on_status(self, event: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        self.node = event["node"]
        update = {k: event[k] for k in ("docs_found", "web_query") if event.get(k) is not None}
        return [("updates", {"node": event["node"], "values": {"status": event["message"], **update}})]

    async def _start_message(self, event: dict[str, Any]) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
        message_id = await self.answer_id(uuid.UUID(str(event["run_id"])))
        if message_id in self.started:
            return message_id, []
        self.started.add(message_id)
        metadata = {"run_id": str(event["run_id"]), "thread_id": str(self.thread_id), "langgraph_node": self.node}
        return message_id, [
            ("messages", {"event": "message-start", "role": "ai", "id": message_id, "metadata": metadata}),
            ("messages", {"event": "content-block-start", "index": 0, "content": {"type": "text", "text": ""}}),
        ]

    async def _on_token(self, event: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        _, out = await self._start_message(event)
        delta = {"type": "text-delta", "text": event["text"]}
        return [*out, ("messages", {"event": "content-block-delta", "index": 0, "delta": delta})]

    async def _on_response(self, event: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        message_id, out = await self._start_message(event)
        text = {"type": "text", "text": event["response"]}
        row = {"id": message_id, "role": "assistant", "content": event["response"], "metadata": answer_metadata(event)}
        stopped = bool(event.get("stopped"))
        ending = {"event": "failed", "error": "cancelled"} if stopped else {"event": "completed"}
        return [
            *out,
            ("messages", {"event": "content-block-finish", "index": 0, "content": text}),
            ("messages", {"event": "message-finish"}),
            ("updates", {"node": "format_response", "values": {"messages": [lc_message(row)]}}),
            ("values", await self.values()),
            ("lifecycle", ending),
        ]

    async def _on_interrupt(self, event: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        return await self._ask(Question.model_validate({k: event.get(k) for k in Question.model_fields}))

    async def _on_escalation(self, event: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        return await self._ask(Question(interrupt_type="escalation", message=event["message"]))

    async def _ask(self, question: Question) -> list[tuple[str, dict[str, Any]]]:
        value = offered(question.model_dump(mode="json"))
        interrupt_id = await self.interrupt_id()
        pending = [{"value": value, "id": interrupt_id}]
        return [
            ("values", {**await self.values(), "__interrupt__": pending}),
            ("input.requested", {"interrupt_id": interrupt_id, "payload": value, "value": value}),
            ("lifecycle", {"event": "interrupted"}),
        ]

    async def _on_error(self, event: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        return [("lifecycle", {"event": "failed", "error": event.get("message") or event.get("code", "error")})]
