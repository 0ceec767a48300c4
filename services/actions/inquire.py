"""Inquire (docs/architecture.md §7.3): rewrite the query, search the resolved documents (or everything visible),
answer with [n].

Prompt modes of the graph-fix plan:
A — relevant context found: the model answers only from it;
B — the user has no documents at all: a general-knowledge answer, labelled as such, confidence
    low (the offline engine has no general knowledge and says so instead);
C — documents exist but nothing relevant was found: a fixed text says so, and offers the closest
    passage of the same scope (one sentence, cited, confidence low) so the user can judge it.
Passages that are found but only weakly related (the best three, on average, in the low tier and
no sentence that answers, or with no sentence about the question:
services/actions/evidence.py) trigger the `retrieval_low` PalAssist
question; "continue anyway" says that the documents do not answer directly before the closest
passages, rather than quoting them as if they did (issue #27). Over tagged documents one search
reads whole, only a word or a quantity they lack asks it; weak similarity alone goes on as
"continue anyway" would (services/actions/whole_read.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Command

from services.actions import retrieve
from services.actions.citations import CitationBook, passages_of
from services.actions.compose import stream_answer
from services.actions.evidence import (
    SentenceEvidence,
    above_floor,
    asks_something,
    confidence,
    evidence_strength,
    mean_similarity,
    sentence_evidence,
)
from services.actions.line_search import with_lines
from services.actions.palassist import (
    DISCLAIMER,
    LowRetrievalChoice,
    ask_about_low_retrieval,
    low_retrieval_options,
)
from services.actions.streaming import stream_text
from services.actions.unmentioned import never_mentioned, unmentioned
from services.actions.web import WebSupplement, web_supplement
from services.actions.whole_read import reads_whole, tagged_per_doc_k, unanswered_lead, whole_notice
from shared.contracts import ChunkHit
from shared.db import documents as docs
from shared.db.pool import tenant_tx
from shared.graph.context import StageContext
from shared.graph.state import AgentState, earlier_user_messages, resolved_doc_ids, resolved_docs
from shared.llm import CallScope, build_prompt
from shared.llm.schemas import AnswerInputs, RewriteInputs, RewriteOutput
from shared.text.search_query import retrieval_query

ANSWER_SENTENCES = 4
CLOSEST_LEAD = "The closest passage I found:"
UNANSWERED_LEAD = unanswered_lead(0)


def nothing_relevant(titles: list[str]) -> str:
    where = ", ".join(titles) if titles else "your documents"
    return (
        f"I couldn't find anything relevant to your question in {where}. "
        "Try rephrasing, or tag the document that should contain the answer."
    )


async def rewrite_query(ctx: StageContext, state: AgentState, query: str) -> str:
    """A standalone search query (task `query_rewrite`)."""
    summary = state.get("conversation_summary")
    history = [f"(summary of earlier turns) {summary}"] if summary else []
    inputs = RewriteInputs(
        query=query,
        action="inquire",
        history=history + earlier_user_messages(state),
        documents=[doc.title for doc in resolved_docs(state)],
    )
    # A model that fails here is stood in for by the offline engine's rewrite (docs/model-servers.md).
    out = await ctx.llm.structured(
        "query_rewrite", RewriteOutput, build_prompt("query_rewrite", inputs), scope=CallScope.of(state)
    )
    return out.query


async def has_documents(ctx: StageContext, state: AgentState) -> bool:
    async with tenant_tx(ctx.db, state["tenant_id"], state["user_id"]) as conn:
        return await docs.has_ready_documents(conn)


async def scoped_search(ctx: StageContext, state: AgentState, query: str, doc_ids: list[str]) -> list[ChunkHit]:
    """The search; over tagged documents, wider and hybrid.

    Answers are picked sentence by sentence, so over a few tagged documents more of their chunks
    are candidates (`total_k` shared among them instead of `per_doc_k` each). Full-text matches of
    the question's words join the vector ranks and survive the similarity floor (cheap at scope
    size; measured on the dev split of examples/eval): a tagged document that contains the
    question's terms is never answered "nothing found", even when its short multi-topic chunk
    embeds below the floor. Its low similarity keeps the confidence honest (`retrieval_low` or a
    low tier). A tagged document with neither a close chunk nor any of the question's words still
    gets mode C. The search looks for the question's words without its source references and
    instructions, abbreviations spelled out (shared/text/search_query.py), and for each line of a
    figure to compute on its own (line_search.py).
    """
    terms = retrieval_query(query)
    if not doc_ids:
        return await retrieve.search(ctx, state, terms, doc_ids)
    per_doc_k = tagged_per_doc_k(ctx.settings, len(doc_ids))
    hits = await retrieve.search(ctx, state, terms, doc_ids, per_doc_k=per_doc_k, hybrid=True)
    # A figure to compute: each of its lines searched for on its own as well (line_search.py).
    return await with_lines(ctx, state, query, doc_ids, hits)


@dataclass
class Evidence:
    """What the answer rests on: the chunks, how close their sentences come to the question, how the
    user chose to go on when it was weak, and the documents searched."""

    chunks: list[ChunkHit]
    sentence: SentenceEvidence
    choice: LowRetrievalChoice
    doc_ids: list[str]


async def gather_evidence(
    ctx: StageContext, state: AgentState, search_query: str, doc_ids: list[str], support: bool
) -> Evidence | Command:
    """Search; on weak evidence ask `retrieval_low` (never in support mode) and widen on request."""
    settings = ctx.settings
    chunks = await scoped_search(ctx, state, search_query, doc_ids)
    choice = LowRetrievalChoice(web_search=bool(state.get("enable_web_search")) and not support)
    strength = evidence_strength(above_floor(chunks, settings))
    # The chunks' tier gets the second opinion of their sentences (services/actions/evidence.py).
    asks = asks_something(state.get("clean_query") or state.get("query", ""))
    sentence = await weigh(ctx, state, search_query, chunks, asks)
    if chunks and not support and not choice.web_search and confidence(strength, sentence, settings) == "low":
        if not sentence.names_a_gap and await reads_whole(ctx, state, doc_ids):
            return Evidence(chunks, sentence, LowRetrievalChoice(disclaimer=True, read_whole=True), doc_ids)
        tagged = bool(doc_ids)
        asked = await ask_about_low_retrieval(ctx, state, low_retrieval_options(tagged), tagged=tagged)
        if isinstance(asked, Command):
            return asked
        choice = asked
        if choice.search_all or choice.documents:
            # The documents the user tagged when asked, or all of theirs.
            doc_ids = [doc["id"] for doc in choice.documents]
            chunks = await scoped_search(ctx, state, search_query, doc_ids)
            sentence = await weigh(ctx, state, search_query, chunks, asks)
    return Evidence(chunks, sentence, choice, doc_ids)


async def weigh(
    ctx: StageContext, state: AgentState, search_query: str, chunks: list[ChunkHit], asks: bool
) -> SentenceEvidence:
    """The sentences' evidence, with what the question asks about that the documents never mention."""
    if not chunks:
        return SentenceEvidence()
    sentence = await sentence_evidence(search_query, chunks, asks=asks)
    if not asks:
        return sentence
    return replace(sentence, unmentioned=tuple(await unmentioned(ctx, state, search_query, chunks)))


async def closest_passage(
    ctx: StageContext, state: AgentState, search_query: str, doc_ids: list[str], said: str
) -> tuple[str, CitationBook | None]:
    """Mode C's offer: the one sentence of the scope closest to the question, cited, after `said`."""
    closest = await retrieve.search(ctx, state, search_query, doc_ids, per_doc_k=1, total_k=1, min_similarity=-1.0)
    if not closest:
        return said, None
    book = CitationBook(closest)
    stream_text(f" {CLOSEST_LEAD} ")
    inputs = AnswerInputs(query=search_query, passages=passages_of(closest), sentences=1, floor=-1.0)
    passage = await stream_answer(ctx, state, "inquire", inputs, book)
    return (f"{said} {CLOSEST_LEAD} {passage}" if passage else said), book


def answer_lead(choice: LowRetrievalChoice, tagged: int) -> str:
    """How an answer from weak passages opens: that they may not answer directly (none when strong)."""
    if not choice.disclaimer:
        return ""
    return unanswered_lead(tagged if choice.read_whole else 0)


def turn_notices(web: WebSupplement, evidence: Evidence, support: bool) -> list[str]:
    """The notices under the answer: the web search's, what the documents never mention (not to a
    customer, whose answer is graded on it instead), and the disclaimer the user chose to continue with,
    or, where nobody was asked because the tagged documents were read whole, where else to look."""
    unsaid = None if support else never_mentioned(evidence.sentence.unmentioned)
    choice = evidence.choice
    closing = whole_notice(len(evidence.doc_ids)) if choice.read_whole else DISCLAIMER if choice.disclaimer else None
    return [n for n in (web.notice, unsaid, closing) if n]


async def inquire(state: AgentState, runtime: Runtime[StageContext]) -> dict[str, Any] | Command:
    ctx = runtime.context
    settings = ctx.settings
    query = state.get("clean_query") or state.get("query", "")
    doc_ids = resolved_doc_ids(state)
    # Support mode: the question is already standalone, and customers get no PalAssist: a weak
    # answer is graded low and escalated to a human instead.
    support = state.get("mode") == "support"
    search_query = query if support else await rewrite_query(ctx, state, query)
    evidence = await gather_evidence(ctx, state, search_query, doc_ids, support)
    if isinstance(evidence, Command):
        return evidence
    chunks, choice, doc_ids = evidence.chunks, evidence.choice, evidence.doc_ids
    documents = choice.documents or state.get("resolved_docs", [])
    titles = [doc["title"] for doc in documents]
    book = CitationBook(chunks)
    mode = "documents" if chunks else ""
    if not chunks and not doc_ids and not support and not await has_documents(ctx, state):
        mode = "no_documents"
    doc_text = ""
    if mode:  # A, or B on the no-documents prompt
        inputs = AnswerInputs(
            # The rewritten query: standalone, and searchable even when the request was one word.
            query=search_query,
            passages=passages_of(chunks),
            sentences=ANSWER_SENTENCES,
            # Tagged documents are always answered from their best sentences; confidence says how good.
            floor=-1.0 if doc_ids else settings.similarity.min_similarity,
            mode=mode,
        )
        lead = answer_lead(choice, len(doc_ids)) if mode == "documents" else ""
        if lead:
            stream_text(lead + " ")
        answer = await stream_answer(ctx, state, "inquire", inputs, book)
        doc_text = f"{lead} {answer}" if lead and answer else answer
    web = WebSupplement()
    if choice.web_search:
        web = await web_supplement(ctx, state, "inquire", search_query, first_number=book.count + 1)
    if not doc_text and not web.text and not support:  # C
        said = nothing_relevant(titles)
        stream_text(said)
        doc_text, closest_book = await closest_passage(ctx, state, search_query, doc_ids, said)
        book = closest_book or book
    if web.text:
        stream_text(("\n\n" if doc_text else "") + web.text)
    text = "\n\n".join(part for part in (doc_text, web.text) if part)
    score = mean_similarity(book.used)
    weak = choice.disclaimer or not book.used or not chunks
    return {
        "response": text,
        "citations": book.citations() + web.citations,
        "retrieval_confidence": "low" if weak else confidence(score, evidence.sentence, settings),
        "confidence_score": round(score, 4),
        "engine": ctx.llm.engine("inquire"),
        "notices": turn_notices(web, evidence, support),
        "web_search_query": web.query,
        "unmentioned": list(evidence.sentence.unmentioned),
        "unstated": evidence.sentence.unstated,
        "resolved_docs": documents,
    }
