"""Who is asking, and the web query each action builds with it (docs/architecture.md §7.5).

The profile is read once per action from the user's row and goes into the action's model inputs
(every action, audit included) and into its web query: the feature spec has the action, not the
intent resolver, write the query "with full context", i.e. the standalone query, the documents it is
about and the user's place and trade.
"""

from __future__ import annotations

from shared.db import users
from shared.db.pool import tenant_tx
from shared.graph.context import StageContext
from shared.graph.state import AgentState
from shared.llm.schemas import Profile
from shared.text.labels import base_title

WEB_QUERY_CHARS = 400  # Tavily's queries are short; the question keeps its words, context is trimmed first


async def user_profile(ctx: StageContext, state: AgentState) -> Profile:
    async with tenant_tx(ctx.db, state["tenant_id"], state["user_id"]) as conn:
        return Profile(**await users.audience(conn, state["user_id"]))


def web_query(query: str, titles: list[str], profile: Profile) -> str:
    """The standalone query, then the documents' titles (without versions) and the user's location and
    industry, each only where the query does not already say it."""
    lowered = query.lower()
    context = [t for t in dict.fromkeys(base_title(t) for t in titles) if t.lower() not in lowered]
    context += [v for v in profile.places_and_trades() if v.lower() not in lowered]
    text = " ".join([query.strip(), *context])
    return text[:WEB_QUERY_CHARS].rstrip()
