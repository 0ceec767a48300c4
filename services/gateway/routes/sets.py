"""Document sets: named, coloured groups of a user's documents (PolicyPal spec §2)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from services.gateway.auth import WorkspaceUser
from services.gateway.deps import Gateway
from services.gateway.errors import ApiError, documented_errors
from services.gateway.tenancy import ensure_user
from shared.contracts.api import SetCreate, SetOut
from shared.db import documents as docs
from shared.db.pool import tenant_tx

router = APIRouter(prefix="/v1", tags=["documents"], responses=documented_errors(400, 401, 403, 413, 422, 503))


@router.get("/sets", response_model=list[SetOut])
async def list_sets(p: WorkspaceUser, gw: Gateway) -> list[SetOut]:
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        return [SetOut(**row) for row in await docs.list_sets(conn, p.user_id)]


@router.get("/sets/palette", response_model=list[str])
async def palette(p: WorkspaceUser) -> list[str]:
    """The preset colours a new set may take (feature spec §2: "selects color from 6-8 presets")."""
    return list(docs.SET_PALETTE)


@router.post("/sets", status_code=201, response_model=SetOut, responses={200: {"model": SetOut}})
async def create_set(body: SetCreate, p: WorkspaceUser, gw: Gateway) -> SetOut | JSONResponse:
    """Create a set; an existing set of the same name is returned unchanged (200)."""
    if body.color is not None and body.color not in docs.SET_PALETTE:
        raise ApiError(422, "validation_error", f"color: must be one of {', '.join(docs.SET_PALETTE)}")
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        await ensure_user(conn, p)
        before = {row["name"] for row in await docs.list_sets(conn, p.user_id)}
        await docs.get_or_create_set(conn, p.tenant_id, p.user_id, body.name, body.color)
        row = next(r for r in await docs.list_sets(conn, p.user_id) if r["name"] == body.name)
    out = SetOut(**row)
    if body.name in before:
        return JSONResponse(out.model_dump(mode="json"), status_code=200)
    return out
