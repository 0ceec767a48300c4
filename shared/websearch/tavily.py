"""Tavily search (basic depth, one credit per query) with two attempts on transient failures.

The base URL is a setting so the real client can be pointed at a wire-compatible server in
tests (or a proxy in production). Plan limits surface as `WebSearchLimitReached` so the answer
can say so instead of pretending nothing was found.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

import httpx
from tavily import AsyncTavilyClient
from tavily.errors import ForbiddenError, UsageLimitExceededError

from shared.config import Settings

log = logging.getLogger(__name__)

ATTEMPTS = 2
LIMIT_NOTICE = "⚠️ Web Search Limit Reached (1000/month): this answer uses your documents only."
UNAVAILABLE_NOTICE = "Web search is not configured on this server, so this answer uses your documents only."


class WebSearchUnavailable(Exception):
    """No key configured, or the service kept failing."""


class WebSearchLimitReached(Exception):
    """The plan's usage limit is exhausted (HTTP 429/432/433)."""


@dataclass(frozen=True)
class WebResult:
    title: str
    url: str
    content: str


async def web_search(settings: Settings, query: str) -> list[WebResult]:
    if not settings.tavily_api_key:
        raise WebSearchUnavailable(UNAVAILABLE_NOTICE)
    client = AsyncTavilyClient(api_key=settings.tavily_api_key, api_base_url=settings.tavily_base_url)
    for attempt in range(1, ATTEMPTS + 1):
        try:
            data = await client.search(query, search_depth="basic", max_results=settings.web_results, timeout=20)
            break
        except (UsageLimitExceededError, ForbiddenError) as exc:
            raise WebSearchLimitReached(LIMIT_NOTICE) from exc
        except (httpx.HTTPError, TimeoutError) as exc:
            log.warning("web search attempt %d failed: %s", attempt, exc)
            if attempt == ATTEMPTS:
                raise WebSearchUnavailable("Web search failed, so this answer uses your documents only.") from exc
            await asyncio.sleep(0.5 * attempt)
    return [
        WebResult(title=r.get("title") or r.get("url", ""), url=r["url"], content=r.get("content") or "")
        for r in data.get("results", [])
        if r.get("url")
    ]
