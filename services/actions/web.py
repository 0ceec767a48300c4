"""The optional web supplement of an answer: Tavily results, best sentences, web citations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.actions.profile import user_profile, web_query
from shared.contracts import Citation
from shared.embeddings.provider import embed_async
from shared.graph.context import StageContext
from shared.graph.state import AgentState, resolved_docs
from shared.graph.stream_parts import part_writer, status_part
from shared.text.extracts import select_extracts
from shared.text.quotes import quote_of
from shared.text.sentences import Sentence, split_sentences
from shared.websearch import WebSearchLimitReached, WebSearchUnavailable, web_search
from shared.websearch.tavily import UNAVAILABLE_NOTICE

WEB_SENTENCES = 2


@dataclass
class WebSupplement:
    text: str = ""
    citations: list[dict[str, Any]] = field(default_factory=list)
    notice: str | None = None
    query: str | None = None


def announce(node: str, query: str) -> None:
    """Status event with the web query, so the UI can show what is being searched."""
    part_writer()(status_part(node, web_query=query))


async def web_supplement(
    ctx: StageContext, state: AgentState, node: str, query: str, first_number: int
) -> WebSupplement:
    """`query` is the action's standalone query; the web query adds the documents' titles and the
    user's place and trade (services/actions/profile.py)."""
    if not ctx.settings.tavily_api_key:
        return WebSupplement(notice=UNAVAILABLE_NOTICE)
    query = web_query(query, [doc.title for doc in resolved_docs(state)], await user_profile(ctx, state))
    announce(node, query)
    try:
        results = await web_search(ctx.settings, query)
    except (WebSearchUnavailable, WebSearchLimitReached) as exc:
        return WebSupplement(notice=str(exc), query=query)
    sentences = [Sentence(i, s) for i, r in enumerate(results) for s in split_sentences(r.content)]
    if not sentences:
        return WebSupplement(notice="The web search found nothing usable for this question.", query=query)
    vectors = await embed_async([query] + [s.text for s in sentences])
    picks = select_extracts(
        vectors[0], sentences, vectors[1:], k=WEB_SENTENCES, floor=ctx.settings.similarity.min_similarity
    )
    numbers: dict[int, int] = {}
    quotes: dict[int, list[str]] = {}
    parts = []
    for pick in picks:
        index = pick.sentence.chunk_index
        n = numbers.setdefault(index, first_number + len(numbers))
        quotes.setdefault(index, []).append(pick.sentence.text)
        parts.append(f"{pick.sentence.text} [{n}]")
    citations = [
        Citation(
            n=n,
            source_type="web",
            title=results[i].title,
            url=results[i].url,
            quote=quote_of(quotes[i]),
            navigation_target={"type": "web", "url": results[i].url},
        ).model_dump(mode="json")
        for i, n in numbers.items()
    ]
    text = f"**From the web:** {' '.join(parts)}" if parts else ""
    return WebSupplement(text=text, citations=citations, query=query)
