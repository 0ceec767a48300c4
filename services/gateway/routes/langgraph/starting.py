"""The turn a `/lg` run starts: the message (its text, its tags, the files attached to it) and,
with a `checkpoint`, where in the thread it starts (services/gateway/branching.py)."""

from __future__ import annotations

import uuid

from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from services.gateway.attachments import MAX_TAGGED, attachments_of, store_attachments
from services.gateway.branching import message_fork, regenerated
from services.gateway.deps import GatewayState
from services.gateway.errors import ApiError
from services.gateway.routes.langgraph.common import running, thread_row
from shared.auth.tokens import Principal
from shared.contracts import ChatCommand
from shared.contracts.langgraph import LgInput, RunCreate
from shared.db.pool import tenant_tx
from shared.graph.state import replayed_turn


def parsed_turn(body: RunCreate) -> LgInput:
    try:
        return body.turn_input()
    except ValidationError as exc:
        raise RequestValidationError([{**e, "loc": ("body", "input", *e["loc"])} for e in exc.errors()]) from exc


def turn_command(
    turn: LgInput,
    p: Principal,
    thread_id: uuid.UUID,
    run_id: uuid.UUID,
    attached: list[uuid.UUID] | None = None,
    names: list[str] | None = None,
) -> ChatCommand:
    """The turn's command; files attached to the message (`attached`, named `names`) are tagged for it.
    A message of files alone asks for their summary, unless it names an action."""
    text = turn.messages[-1].text.strip()
    attached = attached or []
    tags = list(dict.fromkeys([*turn.tagged_doc_ids, *attached]))
    if len(tags) > MAX_TAGGED:
        where = f"input.messages[{len(turn.messages) - 1}].content"
        reason = f"at most {MAX_TAGGED} documents per message, tagged and attached together ({len(tags)} given)"
        raise ApiError(422, "validation_error", f"{where}: {reason}", {"field": where})
    return ChatCommand(
        run_id=run_id,
        tenant_id=p.tenant_id,
        user_id=p.user_id,
        thread_id=thread_id,
        message=text or attached_text(names or []),
        tiptap_json=turn.tiptap_json,
        tagged_doc_ids=tags,
        tagged_set_ids=turn.tagged_set_ids,
        action=turn.action or (None if text else "summarize"),
        enable_web_search=turn.enable_web_search,
        attachment_ids=attached,
    )


def attached_text(names: list[str]) -> str:
    """The message of a turn that is files alone, as the history shows it."""
    return "Attached: " + ", ".join(names)


async def new_turn(
    gw: GatewayState, p: Principal, thread_id: uuid.UUID, run_id: uuid.UUID, body: RunCreate
) -> ChatCommand:
    """The turn a run starts: its input; with a `checkpoint`, a fork there (a new message) or that
    checkpoint's turn again (no input: regenerate), services/gateway/branching.py."""
    at = body.from_checkpoint
    field = body.checkpoint_field
    graph = gw.graph_view
    if at is not None and body.regenerates:
        async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
            again = await regenerated(gw.checkpoints, conn, thread_id, at, field)
        envelope = {"run_id": run_id, "tenant_id": p.tenant_id, "user_id": p.user_id, "thread_id": thread_id}
        return replayed_turn(again.turn, **envelope, checkpoint_id=again.checkpoint_id)
    turn = parsed_turn(body)
    last = turn.messages[-1]
    where = f"input.messages[{len(turn.messages) - 1}].content"
    files = attachments_of(last.content, where, gw.settings.max_upload_bytes)
    attached = await store_attachments(gw, p, files, where) if files else []
    cmd = turn_command(turn, p, thread_id, run_id, attached, [f.filename for f in files])
    if at is None:
        return cmd
    row = await thread_row(gw, p, thread_id)
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        busy = running(row, gw.settings.turn_timeout_s)
        fork = await message_fork(graph, conn, thread_id, at, running=busy, field=field)
    return cmd.model_copy(update={"checkpoint_id": fork})
