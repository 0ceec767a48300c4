"""The commands of LangGraph's v3 thread protocol (`POST /threads/{id}/commands`, protocol.py), each
carried out as the classic `/lg` routes would, on the same bus and checkpoints:

- `run.start` starts a run as `POST /threads/{id}/runs` does (the thread is created on its first
  run; `enqueue` by default; `config.configurable.checkpoint_id` forks there) → `{run_id}`;
- `input.respond` answers the pending question (`interrupt_id`) as `command: {resume}` does;
- `input.inject` puts a user message on the thread while it works: PolicyPal's stages take no input
  mid-run, so the message is the thread's next turn, queued behind the running one (`enqueue`) →
  `{}`; a question waiting is cancelled by it, as by any new message;
- `state.get` → the thread's values and checkpoint; `state.listCheckpoints` → the thread's
  checkpoints, newest first, `limit` of them `before` a checkpoint id (the cursor);
- `state.fork` → a run from a checkpoint, `{run_id, thread_id}`; `agent.getTree` → the one graph
  and its status.

`meta.applied_through_seq` is the last event before the run: a stream with that `since` has all of it.
A refusal is a `CommandRefused`: the protocol's error code and a message naming the parameter.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from services.gateway.deps import GatewayState
from services.gateway.errors import ApiError
from services.gateway.routes.langgraph.common import ASSISTANT_ID, interrupts_of, running, snapshot, thread_row
from services.gateway.routes.langgraph.protocol_events import SLOTS
from services.gateway.routes.langgraph.runs import start_run
from services.gateway.routes.langgraph.starting import parsed_turn
from services.gateway.routes.langgraph.values import thread_values
from shared.auth.tokens import Principal
from shared.contracts.langgraph import LgCommand, RunCreate
from shared.contracts.lg_protocol import (
    InputInjectParams,
    InputRespondParams,
    ListCheckpointsParams,
    RunStartParams,
    StateGetParams,
)
from shared.db.pool import tenant_tx
from shared.graph.runner import from_checkpoint, thread_config

M = TypeVar("M", bound=BaseModel)
Handler = Callable[[GatewayState, Principal, uuid.UUID, dict[str, Any]], Awaitable[dict[str, Any]]]
# The protocol's code for each of PolicyPal's refusals that has one of its own.
PROTOCOL_CODE = {403: "permission_denied", 409: "invalid_argument"}
# Commands of the protocol PolicyPal does not offer over HTTP: the subscription ones belong to the
# WebSocket (protocol_socket.py; on SSE the stream's own body is the subscription).
NOT_SUPPORTED = frozenset({"subscription.subscribe", "subscription.unsubscribe", "subscription.reconnect"})


class CommandRefused(Exception):
    """A command that cannot be carried out: answered with `status` and the protocol's error envelope."""

    def __init__(self, status: int, error: str, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.status, self.error, self.message, self.code = status, error, message, code


def _params(model: type[M], params: dict[str, Any]) -> M:
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in ("params", *first["loc"]))
        raise CommandRefused(422, "invalid_argument", f"{where}: {first['msg']}") from exc


def refusal(exc: ApiError | RequestValidationError) -> CommandRefused:
    if isinstance(exc, RequestValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"] if part != "body")
        return CommandRefused(422, "invalid_argument", f"params.{where}: {first['msg']}", "validation_error")
    error = "no_such_interrupt" if exc.code == "no_pending_interrupt" else PROTOCOL_CODE.get(exc.status)
    return CommandRefused(exc.status, error or "invalid_argument", exc.message, exc.code)


def _root(namespace: list[str]) -> None:
    if namespace:
        raise CommandRefused(404, "no_such_namespace", f"no namespace {namespace}: PolicyPal has no subgraphs")


async def _run(gw: GatewayState, p: Principal, thread_id: uuid.UUID, body: RunCreate) -> dict[str, Any]:
    """Start a run on the bus as the classic routes do; its id, and the last event before it."""
    if body.input:
        try:
            parsed_turn(body)  # before the thread is created for it: a refused run leaves nothing behind
        except RequestValidationError as exc:
            raise refusal(exc) from exc
    try:
        row, sub = await start_run(gw, p, thread_id, body)
    except (ApiError, RequestValidationError) as exc:
        raise refusal(exc) from exc
    await sub.unsubscribe()  # the client follows the thread on its event stream
    return {
        "result": {"run_id": str(row["run_id"])},
        "meta": {"applied_through_seq": row["start_seq"] * SLOTS + SLOTS - 1},
    }


def _run_body(**fields: Any) -> RunCreate:
    try:
        return RunCreate(if_not_exists="create", **fields)
    except ValidationError as exc:
        raise CommandRefused(422, "invalid_argument", f"params: {exc.errors()[0]['msg']}") from exc


async def run_start(gw: GatewayState, p: Principal, thread_id: uuid.UUID, params: dict[str, Any]) -> dict[str, Any]:
    start = _params(RunStartParams, params)
    body = _run_body(
        assistant_id=start.assistant_id,
        input=start.input,
        metadata=start.metadata,
        multitask_strategy=start.multitask_strategy,
        checkpoint_id=start.checkpoint_id,
    )
    return await _run(gw, p, thread_id, body)


async def input_respond(gw: GatewayState, p: Principal, thread_id: uuid.UUID, params: dict[str, Any]) -> dict:
    try:
        answer = _params(InputRespondParams, params).answer()
    except ValueError as exc:
        raise CommandRefused(422, "invalid_argument", f"params: {exc}") from exc
    await thread_row(gw, p, thread_id)
    pending = interrupts_of(await snapshot(gw, thread_id))
    _root(answer.namespace)
    if not pending or pending[0].id != answer.interrupt_id:
        raise CommandRefused(404, "no_such_interrupt", f"no interrupt {answer.interrupt_id!r} waits on this thread")
    try:
        return await _run(gw, p, thread_id, _run_body(command=LgCommand(resume=answer.response)))
    except CommandRefused as refused:  # the answer's check names `command.resume`: here it is `params.response`
        refused.message = refused.message.replace("command.resume", "params.response")
        raise


async def input_inject(gw: GatewayState, p: Principal, thread_id: uuid.UUID, params: dict[str, Any]) -> dict:
    injected = _params(InputInjectParams, params)
    _root(injected.namespace)
    await thread_row(gw, p, thread_id)
    turn = {"messages": [{"type": "human", "content": injected.message.content}]}
    out = await _run(gw, p, thread_id, _run_body(input=turn, multitask_strategy="enqueue"))
    return {"result": {}, "meta": out["meta"]}


async def state_fork(gw: GatewayState, p: Principal, thread_id: uuid.UUID, params: dict[str, Any]) -> dict:
    checkpoint_id = params.get("checkpoint_id")
    if not isinstance(checkpoint_id, str) or not checkpoint_id:
        raise CommandRefused(422, "invalid_argument", "params.checkpoint_id: a checkpoint id is required")
    await thread_row(gw, p, thread_id)
    out = await _run(gw, p, thread_id, _run_body(input=params.get("input"), checkpoint_id=checkpoint_id))
    return {**out, "result": {**out["result"], "thread_id": str(thread_id)}}


async def state_get(gw: GatewayState, p: Principal, thread_id: uuid.UUID, params: dict[str, Any]) -> dict:
    wanted = _params(StateGetParams, params)
    _root(wanted.namespace)
    await thread_row(gw, p, thread_id)
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        values = await thread_values(conn, thread_id)
    if wanted.keys is not None:
        values = {k: v for k, v in values.items() if k in wanted.keys}
    snap = await snapshot(gw, thread_id)
    checkpoint_id = (snap.config or {}).get("configurable", {}).get("checkpoint_id")
    return {"result": {"values": values, **({"checkpoint": {"id": checkpoint_id}} if checkpoint_id else {})}}


async def state_checkpoints(gw: GatewayState, p: Principal, thread_id: uuid.UUID, params: dict[str, Any]) -> dict:
    """The thread's checkpoints, newest first: each one's id (a fork target), time, step and metadata
    (`source`, the `run_id` that wrote it), with its parent's id for the tree."""
    wanted = _params(ListCheckpointsParams, params)
    _root(wanted.namespace)
    await thread_row(gw, p, thread_id)
    before = from_checkpoint(thread_config(str(thread_id)), wanted.before) if wanted.before else None
    found = []
    async for saved in gw.checkpoints.alist(thread_config(str(thread_id)), before=before, limit=wanted.limit):
        metadata = json.loads(json.dumps(saved.metadata, default=str))
        parent = (saved.parent_config or {}).get("configurable", {}).get("checkpoint_id")
        summary = {"id": saved.checkpoint["id"], "timestamp": saved.checkpoint["ts"], "step": metadata.get("step", -1)}
        found.append({**summary, "metadata": metadata, **({"parent_id": parent} if parent else {})})
    return {"result": {"checkpoints": found}}


async def agent_tree(gw: GatewayState, p: Principal, thread_id: uuid.UUID, _: dict[str, Any]) -> dict:
    row = await thread_row(gw, p, thread_id)
    if running(row, gw.settings.turn_timeout_s):
        status = "running"
    else:
        status = "interrupted" if interrupts_of(await snapshot(gw, thread_id)) else "completed"
    return {"result": {"tree": {"namespace": [], "status": status, "graph_name": ASSISTANT_ID}}}


HANDLERS: dict[str, Handler] = {
    "run.start": run_start,
    "input.respond": input_respond,
    "input.inject": input_inject,
    "state.get": state_get,
    "state.listCheckpoints": state_checkpoints,
    "state.fork": state_fork,
    "agent.getTree": agent_tree,
}
