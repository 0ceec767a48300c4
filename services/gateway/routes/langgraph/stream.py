"""PolicyPal thread events → the LangGraph SSE stream of one run.

One bus event becomes zero or more SSE events, one per requested stream mode:
`status` → `updates` `{node: {status, docs_found?, web_query?}}`; `token` → `messages`
`[AIMessageChunk, metadata]`; `response` → `updates` `{format_response: {messages: [ai]}}` and
`values` (the thread's messages); `interrupt` → `updates`/`values` with `__interrupt__`;
`error` → `error {error, message}`; in `custom` mode every bus event as it is.

Every SSE event has an id of its own, so a reconnect with `Last-Event-ID` resumes right after the
last event the client has: the last SSE event made from bus event N has id `N` (the `PP_EVENTS`
sequence: resume after N), an earlier one `N.k` (the k-th, from 0: resume inside N, skipping what
was delivered). The opening `metadata` is `-1` (a reconnect with it starts over from the run's
start), the first `values` snapshot the sequence the run started after.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from services.gateway.routes.langgraph.interrupts import offered
from services.gateway.routes.langgraph.values import lc_message, token_chunk
from shared.contracts import Question

HEARTBEAT_S = 5.0
# The `Last-Event-ID` that replays a run from its start (metadata included).
FROM_THE_START = -1


def item(event: str, data: Any, seq: int | None = None) -> dict[str, str]:
    out = {"event": event, "data": json.dumps(data, default=str)}
    if seq is not None:
        out["id"] = str(seq)
    return out


def numbered(items: list[dict[str, str]], seq: int) -> list[dict[str, str]]:
    """The SSE events made from bus event `seq`, with their ids: `seq.k` for the k-th, `seq` for the last."""
    for k, each in enumerate(items):
        each["id"] = str(seq) if k == len(items) - 1 else f"{seq}.{k}"
    return items


@dataclass
class RunStream:
    """Translates one run's bus events for the requested modes (`messages` = `messages-tuple`)."""

    run_id: uuid.UUID
    thread_id: uuid.UUID
    answer_id: str
    modes: list[str]
    values: Callable[[], Awaitable[dict[str, Any]]]
    interrupt_id: Callable[[], Awaitable[str]]
    # The node of the last status event: the one whose tokens follow (unknown to a join that starts
    # in the middle of the tokens).
    node: str = ""

    def opening(self) -> list[dict[str, str]]:
        return [item("metadata", {"run_id": str(self.run_id), "attempt": 1}, FROM_THE_START)]

    async def initial_values(self, seq: int) -> list[dict[str, str]]:
        return [item("values", await self.values(), seq)] if "values" in self.modes else []

    async def translate(self, seq: int | None, event: dict[str, Any]) -> list[dict[str, str]]:
        kind = event.get("type")
        out: list[dict[str, str]] = []
        if "custom" in self.modes:
            out.append(item("custom", event))
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            out += await handler(event)
        return numbered(out, seq) if seq is not None else out

    async def _on_status(self, event: dict[str, Any]) -> list[dict[str, str]]:
        self.node = event["node"]
        if "updates" not in self.modes:
            return []
        update = {k: event[k] for k in ("docs_found", "web_query") if event.get(k) is not None}
        return [item("updates", {event["node"]: {"status": event["message"], **update}})]

    async def _on_token(self, event: dict[str, Any]) -> list[dict[str, str]]:
        if "messages-tuple" not in self.modes:
            return []
        metadata = {
            "run_id": str(self.run_id),
            "thread_id": str(self.thread_id),
            "langgraph_node": self.node,
            "graph_id": "policypal",
            "assistant_id": "policypal",
        }
        return [item("messages", [token_chunk(self.answer_id, event["text"]), metadata])]

    async def _on_response(self, event: dict[str, Any]) -> list[dict[str, str]]:
        out = []
        if "updates" in self.modes:
            row = {"id": event["message_id"], "role": "assistant", "content": event["response"], "metadata": event}
            message = lc_message({**row, "metadata": answer_metadata(event)})
            out.append(item("updates", {"format_response": {"messages": [message]}}))
        if "values" in self.modes:
            out.append(item("values", await self.values()))
        return out

    async def _on_interrupt(self, event: dict[str, Any]) -> list[dict[str, str]]:
        return await self._offer(Question.model_validate({k: event.get(k) for k in Question.model_fields}))

    async def _on_escalation(self, event: dict[str, Any]) -> list[dict[str, str]]:
        return await self._offer(Question(interrupt_type="escalation", message=event["message"]))

    async def _offer(self, question: Question) -> list[dict[str, str]]:
        pending = [{"value": offered(question.model_dump(mode="json")), "id": await self.interrupt_id()}]
        out = []
        if "updates" in self.modes:
            out.append(item("updates", {"__interrupt__": pending}))
        if "values" in self.modes:
            out.append(item("values", {**await self.values(), "__interrupt__": pending}))
        return out

    async def _on_error(self, event: dict[str, Any]) -> list[dict[str, str]]:
        return [item("error", {"error": event.get("code", "error"), "message": event.get("message", "")})]

    async def relay(
        self, source: AsyncIterator[tuple[int | None, dict[str, Any]] | None], resume: ResumePoint | None = None
    ) -> AsyncIterator[dict[str, str]]:
        async for followed in source:
            if followed is None:  # an idle interval: EventSourceResponse sends its own pings
                continue
            seq, event = followed
            items = await self.translate(seq, event)
            if resume is not None and seq == resume.seq:
                items = items[resume.delivered :]
            for out in items:
                yield out


@dataclass(frozen=True)
class ResumePoint:
    """Where a `Last-Event-ID` leaves off: after bus event `after`; of bus event `seq` (a partly
    delivered one), its first `delivered` SSE events are the client's already."""

    after: int
    seq: int | None = None
    delivered: int = 0

    @classmethod
    def of(cls, last_event_id: str) -> ResumePoint:
        whole, _, part = last_event_id.partition(".")
        if not part:
            return cls(after=int(whole))
        return cls(after=int(whole) - 1, seq=int(whole), delivered=int(part) + 1)


def answer_metadata(event: dict[str, Any]) -> dict[str, Any]:
    skip = {"type", "thread_id", "message_id", "response"}
    return {k: v for k, v in event.items() if k not in skip}
