"""What the resolver and action workers share around running a stage.

Ownership check of the thread, the checkpointer, publishing interrupts (recorded as PalAssist
system messages for the audit trail), and the two delivery hooks that end a run with an `error`
event so the client never waits in silence: `refuse` for a command refused for its content
(`UserFacingError`, not retried) and `dead_letter` for one given up on after its retries.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import uuid
from collections.abc import Awaitable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any

from faststream.nats.annotations import NatsMessage
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.types import Interrupt, StateSnapshot
from pydantic import ValidationError

from shared.bus.delivery import BadInput
from shared.bus.events import RunEvents
from shared.bus.ticket_events import announce_ticket
from shared.contracts import (
    ActionCommand,
    ChatCommand,
    ErrorEvent,
    EscalationEvent,
    InterruptEvent,
    MessageKind,
    Question,
    ResponseEvent,
    ResumeCommand,
    ResumeValue,
    StopCommand,
    TurnResult,
)
from shared.contracts.api import MessageMetadata
from shared.contracts.common import Envelope
from shared.contracts.events import TerminalEvent
from shared.db import conversations, runs, support
from shared.db.circuit import database_failure
from shared.db.pool import tenant_tx
from shared.db.stage_locks import stage_held
from shared.db.usage import run_totals
from shared.embeddings.client import EmbeddingError
from shared.graph import turn_queue
from shared.graph.answering import branch_run, resumed
from shared.graph.context import StageContext
from shared.graph.errors import UserFacingError
from shared.graph.notices import model_notice
from shared.graph.palassist import answer_guarded
from shared.graph.runner import RunStopped, StageOutcome, run_stage, thread_config
from shared.graph.topology import FORMAT_NODE, AgentGraph, Node, compile_graph
from shared.llm.service import LLMService, build_provider
from shared.runtime.causes import cause_of
from shared.runtime.service import Infra
from shared.telemetry.spans import traced_nodes

log = logging.getLogger(__name__)


def embedding_failure(exc: BaseException) -> EmbeddingError | None:
    """The embedding-service failure behind `exc`, if any (model errors wrap it as their cause)."""
    return cause_of(exc, EmbeddingError)


ThreadCommand = ChatCommand | ResumeCommand | ActionCommand


@dataclass(frozen=True)
class RunScope:
    """A stage's command with what every stage looks up before deciding what to do with it."""

    cmd: ThreadCommand
    thread_id: uuid.UUID
    config: RunnableConfig
    snapshot: StateSnapshot
    conversation: dict[str, Any]
    # The run's stop signal while this process works on it (`pp.ctl.stop` sets it).
    stop: asyncio.Event


@dataclass
class StageWorker:
    infra: Infra
    graph: AgentGraph
    stage: str
    # Built once by the process's composition root (`stage_llm`) and handed in.
    llm: LLMService
    # Which replica ran a stage, recorded with its outcome: replicas share one durable consumer.
    instance: str = field(init=False, default_factory=lambda: f"{os.getpid()}-{uuid.uuid4().hex[:6]}")
    # The stop signal of each run this process is working on, set by `pp.ctl.stop`.
    stops: dict[uuid.UUID, asyncio.Event] = field(init=False, default_factory=dict)
    # Threads of runs given up on during a database outage, released once it is back.
    releasing: set[asyncio.Task[None]] = field(init=False, default_factory=set)

    @property
    def context(self) -> StageContext:
        return StageContext(settings=self.infra.settings, bus=self.infra.bus, db=self.infra.db, llm=self.llm)

    def events(self, cmd: Envelope, thread_id: uuid.UUID) -> RunEvents:
        return RunEvents(
            bus=self.infra.bus,
            thread_id=thread_id,
            run_id=cmd.run_id,
            stage=self.stage,
            token_window_s=self.infra.settings.token_window_ms / 1000,
        )

    async def guarded(self, cmd: ThreadCommand, work: Coroutine[Any, Any, None]) -> None:
        """Do a command's work as the one delivery on this stage of its run (a redelivery waits for a
        live earlier one: shared/db/stage_locks.py). A stop ends the run with its event; any other failure
        but the embedding service's goes to the delivery policy: a `UserFacingError` is refused at once
        (`refuse`), anything else is retried and in the end dead-lettered."""
        try:
            async with stage_held(self.infra.db, cmd.run_id, self.stage):
                try:
                    await work
                except RunStopped as exc:
                    await self.end_stopped(cmd, cmd.thread_id, exc.said)
                except Exception as exc:
                    await self.report_embedding_failure(cmd, cmd.thread_id, exc)
                finally:
                    self.stops.pop(cmd.run_id, None)
        finally:
            work.close()  # never started when the stage could not be held (the database is down)

    async def open_scope(self, cmd: ThreadCommand) -> RunScope | None:
        """The command's scope, checked to be its user's thread, with the run's stop signal (already
        set when the user stopped the run before this stage began); None when this stage already
        recorded its outcome for the run (a redelivery with nothing left to do). Every stage of every
        turn asks these three questions first, so one transaction answers them all."""
        # Listening before looking: a stop is recorded before it is broadcast, so a stop sent after
        # the lookup sets this signal, and one sent before it is found by the lookup.
        stop = self.stops.setdefault(cmd.run_id, asyncio.Event())
        async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
            if await conversations.stage_done(conn, cmd.run_id, self.stage) is not None:
                return None
            conversation = await conversations.get_conversation(conn, cmd.thread_id, cmd.user_id)
            if await conversations.stop_requested(conn, cmd.run_id):
                stop.set()
        if conversation is None:
            raise UserFacingError("not_found", f"thread {cmd.thread_id} not found")
        config = thread_config(str(cmd.thread_id), cmd.run_id)
        snapshot = await self.graph.aget_state(config)
        return RunScope(
            cmd=cmd, thread_id=cmd.thread_id, config=config, snapshot=snapshot, conversation=conversation, stop=stop
        )

    async def superseded(self, scope: RunScope) -> bool:
        """Whether another run holds the thread, so this one ended: a late redelivery, recorded as
        done and otherwise left alone."""
        holder = scope.conversation["current_run_id"]
        if holder in (None, scope.cmd.run_id):
            return False
        await self.mark_done(scope.cmd, scope.thread_id, {"superseded_by": str(holder)})
        return True

    async def run(
        self, scope: RunScope, graph_input: object, *, interrupt_before: tuple[str, ...] | None = None
    ) -> StageOutcome:
        """Run the stage's nodes under the run's stop signal (already set: stopped before it began)."""
        if scope.stop.is_set():
            raise RunStopped("")
        return await run_stage(
            self.graph,
            graph_input,
            config=scope.config,
            context=self.context,
            events=self.events(scope.cmd, scope.thread_id),
            interrupt_before=interrupt_before,
            stop=scope.stop,
        )

    async def resume(
        self, scope: RunScope, answer: ResumeValue, *, interrupt_before: tuple[str, ...] | None = None
    ) -> StageOutcome:
        """Run the stage on the user's answer to the pending question (shared/graph/answering.py); at an
        older checkpoint (`answered_at`), the turn goes on as this run, on a new branch."""

        def run(graph_input: object) -> Awaitable[StageOutcome]:
            return self.run(scope, graph_input, interrupt_before=interrupt_before)

        saver = self.graph.checkpointer
        if not isinstance(saver, BaseCheckpointSaver):  # stage_graph always compiles with the Postgres saver
            raise TypeError("the stage's graph has no checkpointer to resume from")
        return await resumed(saver, scope.snapshot, answer, run, branch_run(scope.config, scope.cmd.run_id))

    async def mark_done(self, cmd: Envelope, thread_id: uuid.UUID, outcome: dict[str, Any]) -> None:
        async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
            await conversations.record_stage(
                conn,
                run_id=cmd.run_id,
                stage=self.stage,
                tenant_id=cmd.tenant_id,
                thread_id=thread_id,
                outcome={**outcome, "worker": self.instance},
            )

    async def publish_interrupt(self, cmd: Envelope, thread_id: uuid.UUID, pending: Interrupt) -> None:
        question = Question.model_validate(pending.value)
        if question.interrupt_type == "escalation":
            await self.publish_escalation(cmd, thread_id, question.message)
            return
        event = InterruptEvent(thread_id=thread_id, run_id=cmd.run_id, **question.model_dump())
        details = MessageMetadata(interrupt_type=question.interrupt_type, options=question.options)
        await self.record_message(cmd, thread_id, "pal_assist", "system", event.message, details)
        await self.publish_terminal(cmd, thread_id, event)

    async def publish_escalation(self, cmd: Envelope, thread_id: uuid.UUID, bridge: str) -> None:
        """Support mode: the bridge message joins the customer's history and ends the stream, and the
        tenant's agents see the ticket arrive in their queue."""
        details = MessageMetadata(run_id=cmd.run_id)
        await self.record_message(cmd, thread_id, "escalation", "assistant", bridge, details)
        event = EscalationEvent(thread_id=thread_id, run_id=cmd.run_id, ticket_id=thread_id, message=bridge)
        await self.publish_terminal(cmd, thread_id, event)
        async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
            ticket = await support.get_ticket(conn, thread_id)
        if ticket is not None:
            await announce_ticket(self.infra.bus, cmd.tenant_id, ticket)

    async def record_message(
        self, cmd: Envelope, thread_id: uuid.UUID, kind: MessageKind, role: str, content: str, details: MessageMetadata
    ) -> None:
        """A message of the UI history written by a stage (PalAssist prompts, bridges); its id derives
        from the run and `kind`, so a redelivered stage writes it once. It names its run, by which a
        branch of the thread finds its messages (shared/graph/branches.py)."""
        async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
            await conversations.add_message(
                conn,
                message_id=uuid.uuid5(cmd.run_id, kind),
                thread_id=thread_id,
                tenant_id=cmd.tenant_id,
                role=role,
                content=content,
                metadata=details.model_copy(update={"kind": kind, "run_id": details.run_id or cmd.run_id}).model_dump(
                    mode="json"
                ),
            )

    async def report_embedding_failure(self, cmd: Envelope, thread_id: uuid.UUID, exc: Exception) -> None:
        """A turn that needs vectors while the embedding service is down ends with a clear `error`
        now (the supervisor restarts the service; the user retries), instead of redeliveries."""
        failure = embedding_failure(exc)
        if failure is None:
            raise exc
        log.warning("run %s: %s", cmd.run_id, failure)
        await self.publish_error(cmd, thread_id, "embedding_unavailable", f"{failure}; please try again shortly")

    async def publish_error(self, cmd: Envelope, thread_id: uuid.UUID, code: str, message: str) -> None:
        await self.publish_terminal(
            cmd, thread_id, ErrorEvent(thread_id=thread_id, run_id=cmd.run_id, code=code, message=message)
        )

    async def publish_terminal(self, cmd: Envelope, thread_id: uuid.UUID, event: TerminalEvent) -> None:
        """The run's one terminal event; the thread is released (and the run's status written) first so the
        client can go on at once, then an enqueued run of the thread starts."""
        released = await self.release_or_defer(cmd, thread_id, event)
        await self.events(cmd, thread_id).emit_once(event, key="terminal")
        if released:
            await self.start_next(cmd, thread_id)

    async def release_or_defer(self, cmd: Envelope, thread_id: uuid.UUID, event: TerminalEvent) -> bool:
        """Release the thread now; while Postgres is down, a run being given up on (an `error`) is
        still reported at once and its thread released once the database is back (or its claim goes
        stale after PP_TURN_TIMEOUT_S). False when deferred."""
        try:
            await self.release(cmd, thread_id, event)
        except Exception as exc:
            if not (isinstance(event, ErrorEvent) and database_failure(exc)):
                raise
            log.warning("run %s: reporting %s before the database is back", cmd.run_id, event.code)
            task = asyncio.create_task(self._release_when_back(cmd, thread_id, event))
            self.releasing.add(task)
            task.add_done_callback(self.releasing.discard)
            return False
        return True

    async def start_next(self, cmd: Envelope, thread_id: uuid.UUID) -> None:
        """A run enqueued behind this one on the thread starts now."""
        await turn_queue.start_next(
            self.infra.bus, self.infra.db, cmd.tenant_id, cmd.user_id, thread_id, self.infra.settings.turn_timeout_s
        )

    async def release(self, cmd: Envelope, thread_id: uuid.UUID, event: TerminalEvent) -> None:
        """Free the thread and record how the run ended."""
        async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
            await conversations.release_thread(conn, thread_id, cmd.run_id)
            await runs.finish_run(conn, cmd.run_id, event.type, bool(getattr(event, "stopped", False)))

    async def _release_when_back(self, cmd: Envelope, thread_id: uuid.UUID, event: TerminalEvent) -> None:
        if not await self.infra.db.back_within(self.infra.settings.outage_ride_out_s):
            log.warning("run %s: the database stayed away; the thread's claim will go stale", cmd.run_id)
            return
        try:
            await self.release(cmd, thread_id, event)
            await self.start_next(cmd, thread_id)
        except Exception:
            log.exception("run %s: could not release its thread", cmd.run_id)
            return
        log.info("run %s: thread released now that the database is back", cmd.run_id)

    async def listen_for_stops(self) -> None:
        """Every replica hears every stop (no queue group); only the one working on that run has a signal to set."""
        subscriber = self.infra.bus.broker.subscriber(self.infra.bus.subjects.ctl_stop, persistent=False)
        subscriber(self._on_stop)
        await subscriber.start()

    async def _on_stop(self, msg: NatsMessage) -> None:
        try:
            cmd = StopCommand.model_validate_json(msg.body)
        except ValidationError:
            log.warning("ignored a malformed stop message")
            return
        signal = self.stops.get(cmd.run_id)
        if signal is not None:
            signal.set()

    async def end_stopped(self, cmd: Envelope, thread_id: uuid.UUID, said: str) -> None:
        """The user stopped the run: what was said so far is its answer. The checkpoint is moved
        past format_response, so the next turn starts clean, and the terminal event frees the thread."""
        config = thread_config(str(thread_id), cmd.run_id)
        snapshot = await self.graph.aget_state(config)
        values = snapshot.values if snapshot.values.get("run_id") == str(cmd.run_id) else {}
        text = said.strip()
        message_id = uuid.uuid5(cmd.run_id, "assistant")
        if snapshot.next:
            reply = [AIMessage(content=text, id=f"{cmd.run_id}:assistant")] if text else []
            update = {"response": text, "cancelled": True, "message_id": str(message_id), "messages": reply}
            await self.graph.aupdate_state(config, update, as_node=FORMAT_NODE)
        async with tenant_tx(self.infra.db, cmd.tenant_id, cmd.user_id) as conn:
            tokens, cost = await run_totals(conn, str(cmd.run_id))
        held = TurnResult.of(values)
        # Only what is known of a stopped answer: no citations or retrieval were assessed.
        event = ResponseEvent(
            thread_id=thread_id,
            run_id=cmd.run_id,
            message_id=message_id,
            response=text,
            action=held.action,
            inference_confidence=held.inference_confidence,
            engine=held.engine or self.llm.engine(held.action),
            tokens_used=tokens,
            cost_usd=round(cost, 6),
            stopped=True,
        )
        known = event.model_dump(include={"action", "inference_confidence", "engine", "tokens_used", "cost_usd"})
        details = MessageMetadata(run_id=cmd.run_id, stopped=True, **known)
        await self.record_message(cmd, thread_id, "assistant", "assistant", text, details)
        await self.publish_terminal(cmd, thread_id, event)
        await self.mark_done(cmd, thread_id, {"stopped": True})

    async def refuse(self, raw: bytes, exc: BadInput) -> None:
        """The delivery policy's `on_bad_input`: the run ends with the refusal as its `error` event
        and the thread is free at once. A failure to say so propagates (the policy retries it)."""
        addressed = addressed_to(raw)
        if addressed is None:
            log.warning("refused a message without thread/run/tenant ids: %s", exc.code)
            return
        await self.publish_error(*addressed, exc.code, exc.message)

    async def dead_letter(self, raw: bytes, reason: str) -> None:
        """Best effort: tell the thread's client that its command was given up on."""
        addressed = addressed_to(raw)
        if addressed is None:
            log.warning("dead-lettered a message without thread/run/tenant ids")
            return
        await self.publish_error(*addressed, "dead_letter", f"the request could not be processed: {reason[:300]}")


def addressed_to(raw: bytes) -> tuple[Envelope, uuid.UUID] | None:
    """The envelope and thread of a raw thread command, when it names them."""
    try:
        payload = json.loads(raw)
        thread_id, run_id = uuid.UUID(payload["thread_id"]), uuid.UUID(payload["run_id"])
        tenant_id, user_id = uuid.UUID(payload["tenant_id"]), str(payload["user_id"])
    except (ValueError, KeyError, TypeError):
        return None
    return Envelope(run_id=run_id, tenant_id=tenant_id, user_id=user_id), thread_id


def stage_llm(infra: Infra) -> LLMService:
    """The process's model service (its pace measured soon), built once by a worker's composition root."""
    llm = LLMService(infra.settings, build_provider(infra.settings), infra.db, notice=model_notice)
    llm.warm_up_soon()
    return llm


def stage_graph(infra: Infra, nodes: Mapping[str, Node]) -> AgentGraph:
    """Compile the graph with this worker's nodes over the shared Postgres checkpointer; a node that
    fails on a user's answer ends the run as that answer's fault (`answer_guarded`)."""
    return compile_graph(traced_nodes(answer_guarded(nodes)), AsyncPostgresSaver(infra.db.checkpoint_pool))
