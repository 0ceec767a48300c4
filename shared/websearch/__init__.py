"""Web search for the actions: Tavily through `tavily-python`, only when a key is configured."""

from shared.websearch.tavily import WebResult, WebSearchLimitReached, WebSearchUnavailable, web_search

__all__ = ["WebResult", "WebSearchLimitReached", "WebSearchUnavailable", "web_search"]
