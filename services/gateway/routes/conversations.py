"""Conversations (the chat list) and the user's profile."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query

from services.gateway.auth import WorkspaceUser
from services.gateway.deps import Gateway
from services.gateway.errors import ApiError, documented_errors, not_found
from services.gateway.tenancy import ensure_user
from shared.contracts.api import ConversationOut, ConversationPage, ConversationPatch, Profile
from shared.db import conversations, users
from shared.db.pool import tenant_tx

router = APIRouter(prefix="/v1", tags=["conversations"], responses=documented_errors(400, 401, 403, 404, 413, 422, 503))
PROFILE_FIELDS = tuple(Profile.model_fields)


@router.get("/conversations", response_model=ConversationPage)
async def list_conversations(
    p: WorkspaceUser,
    gw: Gateway,
    limit: Annotated[int, Query(ge=1, le=100)] = 30,
    before: Annotated[str | None, Query(description="Cursor from `next_before`", max_length=100)] = None,
) -> ConversationPage:
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        rows = await conversations.list_conversations(conn, p.user_id, limit, parse_cursor(before))
    items = [ConversationOut(**{k: row[k] for k in ConversationOut.model_fields if k in row}) for row in rows]
    cursor = f"{rows[-1]['activity_at'].isoformat()}|{rows[-1]['thread_id']}" if len(rows) == limit else None
    return ConversationPage(items=items, next_before=cursor)


def parse_cursor(cursor: str | None) -> tuple[datetime, uuid.UUID] | None:
    """Keyset cursor `<activity timestamp>|<thread id>`: stable even when timestamps tie."""
    if cursor is None:
        return None
    try:
        at, thread_id = cursor.split("|", 1)
        return datetime.fromisoformat(at), uuid.UUID(thread_id)
    except ValueError as exc:
        raise ApiError(422, "validation_error", "before: not a cursor returned by this endpoint") from exc


@router.patch("/conversations/{thread_id}", response_model=ConversationOut)
async def rename_conversation(
    thread_id: uuid.UUID, body: ConversationPatch, p: WorkspaceUser, gw: Gateway
) -> ConversationOut:
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        row = await conversations.rename_conversation(conn, thread_id, p.user_id, body.title)
    if row is None:
        raise not_found("thread")
    return ConversationOut(**{k: row[k] for k in ConversationOut.model_fields if k in row})


@router.delete("/conversations/{thread_id}", status_code=204)
async def delete_conversation(thread_id: uuid.UUID, p: WorkspaceUser, gw: Gateway) -> None:
    """Deletes the conversation, its messages and its LangGraph checkpoints."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        if not await conversations.delete_conversation(conn, thread_id, p.user_id):
            raise not_found("thread")
    await gw.checkpoints.adelete_thread(str(thread_id))


@router.get("/profile", response_model=Profile)
async def get_profile(p: WorkspaceUser, gw: Gateway) -> Profile:
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        await ensure_user(conn, p)
        row = await users.get_profile(conn, p.user_id)
    if row is None:  # ensure_user has just written it; gone only if deleted meanwhile
        raise not_found("user")
    return Profile.model_validate({k: v for k, v in row.items() if k in PROFILE_FIELDS})


@router.put("/profile", response_model=Profile)
async def put_profile(body: Profile, p: WorkspaceUser, gw: Gateway) -> Profile:
    """Replace the profile; industry and location shape the agent's answers (docs/architecture.md §7.5)."""
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        await ensure_user(conn, p)
        await users.save_profile(conn, p.user_id, **body.model_dump())
    return body
