"""`GET /v1/actions`: the actions as the workspace UI shows them, read from their records (shared/actions).

Public like the pages themselves: it names what the product can do, nothing of a tenant's. The
mention menu (static/workspace/mentions.js) and the answers' badges (badges.js) read it, so a new
action appears in the UI without a change there.
"""

from __future__ import annotations

from fastapi import APIRouter

from shared.actions import action_specs
from shared.contracts.api import ActionInfo

router = APIRouter(prefix="/v1", tags=["actions"])


@router.get("/actions", response_model=list[ActionInfo])
async def list_actions() -> list[ActionInfo]:
    return [ActionInfo(id=s.name, label=s.label, hint=s.hint, colour=s.colour) for s in action_specs()]
