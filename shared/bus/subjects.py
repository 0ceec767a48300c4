"""Every subject, stream and bucket name, derived from one configurable prefix (docs/architecture.md §4)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass


@dataclass(frozen=True)
class Subjects:
    prefix: str = "pp"

    @property
    def commands_stream(self) -> str:
        return f"{self.prefix.upper()}_COMMANDS"

    @property
    def events_stream(self) -> str:
        return f"{self.prefix.upper()}_EVENTS"

    @property
    def dlq_stream(self) -> str:
        return f"{self.prefix.upper()}_DLQ"

    @property
    def uploads_bucket(self) -> str:
        return f"{self.prefix}-uploads"

    @property
    def cmd_all(self) -> str:
        return f"{self.prefix}.cmd.>"

    @property
    def evt_all(self) -> str:
        return f"{self.prefix}.evt.>"

    @property
    def dlq_all(self) -> str:
        return f"{self.prefix}.dlq.>"

    @property
    def cmd_chat(self) -> str:
        return f"{self.prefix}.cmd.chat"

    @property
    def cmd_resume(self) -> str:
        return f"{self.prefix}.cmd.resume"

    @property
    def cmd_ingest(self) -> str:
        return f"{self.prefix}.cmd.ingest"

    @property
    def cmd_complete_index(self) -> str:
        return f"{self.prefix}.cmd.complete_index"

    @property
    def ctl_stop(self) -> str:
        """Core NATS (no stream): tells the workers running a run to stop it now. The request is
        also recorded in Postgres, so a stage that starts after this message still sees it."""
        return f"{self.prefix}.ctl.stop"

    def cmd_action(self, action: str) -> str:
        return f"{self.prefix}.cmd.action.{action}"

    def evt_thread(self, thread_id: uuid.UUID | str) -> str:
        return f"{self.prefix}.evt.thread.{thread_id}"

    def evt_ingest(self, document_id: uuid.UUID | str) -> str:
        return f"{self.prefix}.evt.ingest.{document_id}"

    def evt_tickets(self, tenant_id: uuid.UUID | str) -> str:
        """One tenant's ticket changes: its agents' live queue (the subject is the tenant boundary)."""
        return f"{self.prefix}.evt.tickets.{tenant_id}"

    @property
    def rpc_search(self) -> str:
        return f"{self.prefix}.rpc.retrieval.search"

    @property
    def rpc_sample(self) -> str:
        return f"{self.prefix}.rpc.retrieval.sample"

    @property
    def rpc_embed(self) -> str:
        return f"{self.prefix}.rpc.embed"

    def dlq(self, kind: str) -> str:
        return f"{self.prefix}.dlq.{kind}"

    def stream_of(self, subject: str) -> str:
        """The JetStream stream that stores `subject` (a publish names it, and the server checks it)."""
        for family, stream in (("cmd", self.commands_stream), ("evt", self.events_stream), ("dlq", self.dlq_stream)):
            if subject.startswith(f"{self.prefix}.{family}."):
                return stream
        raise ValueError(f"{subject} is in no stream (core NATS subjects are published with `broadcast`)")
