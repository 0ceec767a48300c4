"""The resolver worker: runs the resolution stage of a chat turn, then hands the run on.

`pp.cmd.chat` starts a turn from START and stops at the static breakpoint before the chosen
action (or before format_response when the user cancelled); `pp.cmd.resume` continues a
resolution-stage interrupt here and forwards any other interrupt's answer to the action
worker that raised it, so one consumer routes every resume by the checkpoint's pending node.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import replace
from functools import partial

from faststream.nats import NatsRouter

from services.resolver.attachments import wait_for_attachments
from services.resolver.nodes import RESOLVER_NODES
from services.resolver.support import check_cache, contextualize
from shared.bus.broker import serve_routers
from shared.bus.consumer import command_subscriber, commands_router
from shared.bus.publish import publish
from shared.contracts import ActionCommand, ChatCommand, ResumeCommand
from shared.contracts.api import MessageMetadata
from shared.contracts.common import Envelope
from shared.graph.answering import answered_at
from shared.graph.errors import UserFacingError
from shared.graph.runner import StageOutcome, from_checkpoint
from shared.graph.stage import RunScope, StageWorker, stage_graph, stage_llm
from shared.graph.state import turn_action, turn_input
from shared.graph.topology import RESOLUTION_NODES, SUPPORT_ACTION, action_nodes, resolver_breakpoints, worker_nodes
from shared.health import with_health
from shared.llm import LLMService
from shared.runtime.service import Infra, run_service

log = logging.getLogger(__name__)

STAGE = "resolve"


class Resolver(StageWorker):
    async def on_chat(self, cmd: ChatCommand) -> None:
        await self.guarded(cmd, self.chat(cmd))

    async def on_resume(self, cmd: ResumeCommand) -> None:
        await self.guarded(cmd, self.answer(cmd))

    async def chat(self, cmd: ChatCommand) -> None:
        scope = await self.open_scope(cmd)
        if scope is None or await self.superseded(scope):
            return
        if scope.snapshot.values.get("run_id") == str(cmd.run_id):
            await self.continue_redelivered(scope)
            return
        if cmd.attachment_ids:
            events = self.events(cmd, cmd.thread_id)
            wait_s = self.infra.settings.attachment_wait_s
            await wait_for_attachments(self.infra.db, events, cmd, scope.stop, wait_s)
        if cmd.checkpoint_id is not None:
            # Regenerate, edit and resend: the turn starts from that checkpoint, on a new branch; a
            # question pending on the branch left behind stays there.
            scope = replace(scope, config=from_checkpoint(scope.config, cmd.checkpoint_id))
        elif any(task.interrupts for task in scope.snapshot.tasks):
            await self.record_superseded(cmd)
        # The mode comes from the conversation itself, never from the command.
        await self.run_and_conclude(scope, turn_input(cmd, mode=scope.conversation["kind"]))

    async def continue_redelivered(self, scope: RunScope) -> None:
        """A redelivery of a turn this stage already started (its first delivery died, or its ack was
        lost while NATS failed over): go on from where the checkpoint is, never from START again,
        which would re-run resolution over a run that may already be answered. An empty `next` on an
        unanswered run means a delivery broke off right after a node finished: the run goes on."""
        next_nodes, values = tuple(scope.snapshot.next), scope.snapshot.values
        if values.get("message_id"):
            await self.mark_done(scope.cmd, scope.thread_id, {"handoff": "answered"})
        elif next_nodes and next_nodes[0] in resolver_breakpoints():
            handed_to = next_nodes[0] if next_nodes[0] in action_nodes() else values.get("action") or SUPPORT_ACTION
            await self.hand_off(scope.cmd, scope.thread_id, handed_to)
        else:
            await self.run_and_conclude(scope, None)

    async def answer(self, cmd: ResumeCommand) -> None:
        scope = await self.open_scope(cmd)
        if scope is None:
            return
        config, snapshot = await answered_at(
            self.graph, scope.config, scope.snapshot, str(cmd.run_id), cmd.checkpoint_id
        )
        scope = replace(scope, config=config, snapshot=snapshot)
        pending = [i for task in snapshot.tasks for i in task.interrupts]
        if not pending or not snapshot.next:
            raise UserFacingError("no_pending_interrupt", "this thread has no question waiting for an answer")
        node = snapshot.next[0]
        if node not in RESOLUTION_NODES:
            action = node if node in action_nodes() else turn_action(snapshot.values)
            await self.hand_off(cmd, cmd.thread_id, action, resume=cmd)
            return
        outcome = await self.resume(scope, cmd.resume_value, interrupt_before=resolver_breakpoints())
        await self.conclude(cmd, cmd.thread_id, outcome)

    async def run_and_conclude(self, scope: RunScope, graph_input: object) -> None:
        outcome = await self.run(scope, graph_input, interrupt_before=resolver_breakpoints())
        await self.conclude(scope.cmd, scope.thread_id, outcome)

    async def conclude(self, cmd: Envelope, thread_id: uuid.UUID, outcome: StageOutcome) -> None:
        if outcome.interrupts:
            await self.publish_interrupt(cmd, thread_id, outcome.interrupts[0])
            await self.mark_done(cmd, thread_id, {"interrupt": True})
            return
        if not outcome.next_nodes:
            raise RuntimeError("resolution stage ended the graph without reaching an action")
        node = outcome.next_nodes[0]
        action = node if node in action_nodes() else turn_action(outcome.values)
        await self.hand_off(cmd, thread_id, action)

    async def hand_off(
        self, cmd: Envelope, thread_id: uuid.UUID, action: str, resume: ResumeCommand | None = None
    ) -> None:
        handoff = ActionCommand(
            run_id=cmd.run_id,
            tenant_id=cmd.tenant_id,
            user_id=cmd.user_id,
            thread_id=thread_id,
            action=action,
            resume_value=resume.resume_value if resume else None,
            checkpoint_id=resume.checkpoint_id if resume else None,
        )
        subject = self.infra.bus.subjects.cmd_action(action)
        await publish(self.infra.bus, subject, handoff, msg_id=f"{cmd.run_id}:handoff")
        await self.mark_done(cmd, thread_id, {"handoff": action})

    async def record_superseded(self, cmd: ChatCommand) -> None:
        """A new message while PalAssist waits: the question is cancelled, and the audit trail says so."""
        await self.record_message(
            cmd,
            cmd.thread_id,
            "pal_assist_cancelled",
            "system",
            "PalAssist question cancelled by a new message.",
            MessageMetadata(),
        )


def resolver_router(infra: Infra, resolver: Resolver) -> NatsRouter:
    """`pp.cmd.chat` and `pp.cmd.resume`, each on its durable consumer."""
    router = commands_router(
        infra.bus,
        infra.settings,
        kind="resolver",
        on_dead_letter=resolver.dead_letter,
        on_bad_input=resolver.refuse,
        database=infra.maybe_db,
    )
    subscriber = partial(command_subscriber, router, infra.bus, infra.settings)
    subjects = infra.bus.subjects

    @subscriber(subject=subjects.cmd_chat, durable="resolver-chat", model=ChatCommand, description="Start a chat turn.")
    async def on_chat(cmd: ChatCommand) -> None:
        await resolver.on_chat(cmd)

    @subscriber(
        subject=subjects.cmd_resume,
        durable="resolver-resume",
        model=ResumeCommand,
        description="Answer a pending interrupt; resolution interrupts continue here, others go to their action.",
    )
    async def on_resume(cmd: ResumeCommand) -> None:
        await resolver.on_resume(cmd)

    return router


async def serve(infra: Infra, stop: asyncio.Event) -> None:
    implementations = {**RESOLVER_NODES, "check_cache": check_cache, "contextualize": contextualize}
    nodes = {name: implementations[name] for name in worker_nodes("resolver")}
    # Before the first turn needs it (seconds on a loaded CPU), and before the model's pace is measured at
    # startup (stage_llm), which the fit's share of the CPU would make look several times slower.
    await LLMService.prepare_standby()
    resolver = Resolver(infra=infra, graph=stage_graph(infra, nodes), stage=STAGE, llm=stage_llm(infra))
    await resolver.listen_for_stops()
    await serve_routers(infra.bus, stop, resolver_router(infra, resolver))


def main() -> None:
    asyncio.run(run_service("resolver", with_health(serve, durables=["resolver-chat", "resolver-resume"])))
