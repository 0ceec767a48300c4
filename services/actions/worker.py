"""An action worker (`policypal worker action --action NAME`): continues a run from its checkpoint.

Any number of replicas share the durable consumer of `pp.cmd.action.<NAME>`. The worker
owns that action's node and format_response, runs them with `astream(None | Command(resume))`,
and publishes the single terminal event of the run.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import uuid
from dataclasses import replace
from typing import Any

from faststream.nats import NatsRouter

from services.actions.format_response import format_response
from services.actions.support import escalate, grade_confidence
from shared.actions import action_names, action_spec
from shared.bus.broker import serve_routers
from shared.bus.consumer import command_subscriber, commands_router
from shared.contracts import ActionCommand, ResponseEvent
from shared.graph.answering import answered_at
from shared.graph.errors import UserFacingError
from shared.graph.stage import StageWorker, stage_graph, stage_llm
from shared.graph.topology import FORMAT_NODE, Node, worker_nodes
from shared.health import with_health
from shared.runtime.service import Infra, run_service

log = logging.getLogger(__name__)

# The nodes an action worker may own besides its action's (which ones, the topology says).
SHARED_NODES: dict[str, Node] = {
    "grade_confidence": grade_confidence,
    "escalate": escalate,
    FORMAT_NODE: format_response,
}


def action_node(action: str) -> Node:
    """The action's node, imported from where its record says ("module:function")."""
    module, _, name = action_spec(action).node.partition(":")
    node: Node = getattr(importlib.import_module(module), name)
    return node


def stage_nodes(action: str) -> dict[str, Node]:
    """Every node the worker of `action` runs, by name."""
    implementations = {action: action_node(action), **SHARED_NODES}
    return {name: implementations[name] for name in worker_nodes(action)}


def response_event(cmd: ActionCommand, values: dict[str, Any]) -> ResponseEvent:
    """The finished run's answer, as format_response left it in the state."""
    return ResponseEvent.of(
        values, thread_id=cmd.thread_id, run_id=cmd.run_id, message_id=uuid.UUID(values["message_id"])
    )


class ActionWorker(StageWorker):
    async def on_action(self, cmd: ActionCommand) -> None:
        await self.guarded(cmd, self.continue_run(cmd))

    async def continue_run(self, cmd: ActionCommand) -> None:
        scope = await self.open_scope(cmd)
        if scope is None or await self.superseded(scope):
            return
        config, snapshot = await answered_at(
            self.graph, scope.config, scope.snapshot, str(cmd.run_id), cmd.checkpoint_id
        )
        scope = replace(scope, config=config, snapshot=snapshot)
        values = dict(snapshot.values)
        if values.get("message_id"):
            # Answered by an earlier delivery that died (or lost its ack while NATS failed over)
            # before recording it: the same answer again, under the same message id.
            await self.finish(cmd, values)
            return
        # An empty `next` on an unanswered run: an earlier delivery broke off right after a node
        # finished (its writes are kept), and the run goes on from there.
        if snapshot.next and snapshot.next[0] not in worker_nodes(cmd.action):
            raise UserFacingError("wrong_stage", f"run is waiting at {snapshot.next[0]!r}, not {cmd.action!r}")
        outcome = await (self.resume(scope, cmd.resume_value) if cmd.resume_value else self.run(scope, None))
        if outcome.interrupts:
            await self.publish_interrupt(cmd, cmd.thread_id, outcome.interrupts[0])
            await self.mark_done(cmd, cmd.thread_id, {"interrupt": True})
        elif outcome.finished:
            await self.finish(cmd, outcome.values)
        else:
            raise RuntimeError(f"action stage stopped at {outcome.next_nodes}")

    async def finish(self, cmd: ActionCommand, values: dict[str, Any]) -> None:
        event = response_event(cmd, values)
        await self.publish_terminal(cmd, cmd.thread_id, event)
        await self.mark_done(cmd, cmd.thread_id, {"message_id": str(event.message_id)})


def action_router(infra: Infra, worker: ActionWorker, action: str) -> NatsRouter:
    """`pp.cmd.action.<action>` on the durable every replica of this action shares."""
    router = commands_router(
        infra.bus,
        infra.settings,
        kind=f"action.{action}",
        on_dead_letter=worker.dead_letter,
        on_bad_input=worker.refuse,
        database=infra.maybe_db,
    )

    @command_subscriber(
        router,
        infra.bus,
        infra.settings,
        subject=infra.bus.subjects.cmd_action(action),
        durable=f"action-{action}",
        model=ActionCommand,
        description=f"Continue a run at its {action} stage (from the resolver, or a resume answered there).",
    )
    async def on_action(cmd: ActionCommand) -> None:
        await worker.on_action(cmd)

    return router


async def serve_action(infra: Infra, stop: asyncio.Event, action: str) -> None:
    if action not in action_names():
        raise SystemExit(f"unknown action {action!r}; choose one of {sorted(action_names())}")
    graph = stage_graph(infra, stage_nodes(action))
    worker = ActionWorker(infra=infra, graph=graph, stage="action", llm=stage_llm(infra))
    await worker.listen_for_stops()
    await serve_routers(infra.bus, stop, action_router(infra, worker, action))


def main(action: str) -> None:
    serve = with_health(lambda infra, stop: serve_action(infra, stop, action), durables=[f"action-{action}"])
    asyncio.run(run_service(f"action-{action}", serve))
