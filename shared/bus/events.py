"""Publishing a run's events on `pp.evt.thread.<id>` with deterministic de-duplication ids.

Ids are `<run_id>:<stage>:<n>`, so when a redelivered command replays a stage, the events it
already published within JetStream's duplicate window are dropped by the server.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from shared.bus.connection import Bus
from shared.bus.publish import publish
from shared.contracts.events import StatusEvent, ThreadEventBase

STATUS_MESSAGES: dict[str, str] = {
    "intent_resolver": "Clarifying intent...",
    "doc_resolver": "Finding documents...",
    "validate_inputs": "Validating request...",
    "summarize": "Summarizing documents...",
    "inquire": "Researching your question...",
    "compare": "Comparing documents...",
    "audit": "Auditing against regulations...",
    "format_response": "Formatting response...",
}


@dataclass
class RunEvents:
    bus: Bus
    thread_id: uuid.UUID
    run_id: uuid.UUID
    stage: str
    _n: int = field(default=0)

    @property
    def subject(self) -> str:
        return self.bus.subjects.evt_thread(self.thread_id)

    async def emit(self, event: ThreadEventBase) -> None:
        self._n += 1
        await publish(self.bus, self.subject, event, msg_id=f"{self.run_id}:{self.stage}:{self._n}")

    async def emit_once(self, event: ThreadEventBase, key: str) -> None:
        """Publish an event whose identity is `key` alone (terminal events)."""
        await publish(self.bus, self.subject, event, msg_id=f"{self.run_id}:{key}")

    async def status(self, node: str, **extra: object) -> None:
        message = STATUS_MESSAGES.get(node, f"{node}...")
        await self.emit(StatusEvent(thread_id=self.thread_id, run_id=self.run_id, node=node, message=message, **extra))
