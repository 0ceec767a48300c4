"""PalAssist in the action stage: the `retrieval_low` question (docs/architecture.md §7.4) and what each answer does.

Asked after retrieval when the evidence is weak, before any answer is written, so that the user
decides how to go on. Every action asks it the same way (feature spec: retrieval confidence, low →
stop and ask); what is offered fits the action and the search that was weak:
- inquire over tagged documents: searching all of the user's documents (tagging "specific documents"
  is what they already did, issue #27); over everything: tagging the documents that should hold it;
- summarize: tagging other documents to summarize;
- compare: tagging the documents to compare (never the web: compare does not search it).
Searching the web (where the action may) and going on with a disclaimer are offered too.

"📄 Tag specific documents" does not end the turn: the workspace opens the @-menu on the same
question, and the answer names the documents (and sets) picked, which the action then uses
(`LowRetrievalChoice.documents`). A client that answers the bare option cannot show a menu; its turn
ends with the instruction to tag and ask again. On resume LangGraph re-runs the node; retrieval is
repeated (cheap) and the model calls before the question are answered from the usage ledger.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from langgraph.types import Command

from shared.contracts import InterruptOption
from shared.contracts.answers import TAG_CHOICE, tagged_answer
from shared.graph.context import StageContext
from shared.graph.errors import InvalidAnswer
from shared.graph.palassist import Cancelled, ask, end_turn
from shared.graph.scope import tagged_scope
from shared.graph.state import AgentState
from shared.graph.topology import FORMAT_NODE

TAG_DOCS, SEARCH_ALL, WEB_SEARCH, CONTINUE = TAG_CHOICE, "search_all", "web_search", "continue"
# The feature spec's PalAssist text for low retrieval confidence.
QUESTION = "I couldn't find strong matches in the documents. Would you like me to:"
TAGGED_QUESTION = "I couldn't find strong matches in the documents you tagged. Would you like me to:"
TAG_OPTION = InterruptOption(id=TAG_DOCS, label="📄 Tag specific documents")
SEARCH_ALL_OPTION = InterruptOption(id=SEARCH_ALL, label="🔎 Search all my documents")
WEB_OPTION = InterruptOption(id=WEB_SEARCH, label="🌐 Search the web")
CONTINUE_OPTION = InterruptOption(id=CONTINUE, label="Continue anyway with disclaimer")
OTHER_OPTIONS = [WEB_OPTION, CONTINUE_OPTION]
DISCLAIMER = "Limited information available. Verification with source documents recommended."
TAG_FEEDBACK = "Please tag the documents that should contain the answer with @ and ask again."
CANCEL_FEEDBACK = "Ask again whenever you're ready."


@dataclass(frozen=True)
class LowRetrievalChoice:
    """How the action goes on after a weak retrieval. `documents`: the documents the user tagged
    instead (ResolvedDoc JSON, as the state holds them); the action answers from them. `read_whole`:
    nobody was asked, because the search read the tagged documents whole (whole_read.py); the answer
    goes on as with `disclaimer`."""

    web_search: bool = False
    disclaimer: bool = False
    read_whole: bool = False
    search_all: bool = False
    documents: list[dict[str, str]] = field(default_factory=list)


def low_retrieval_options(tagged: bool) -> list[InterruptOption]:
    """Inquire's options: widen a tagged search, or tag documents for an untagged one."""
    return [SEARCH_ALL_OPTION if tagged else TAG_OPTION, *OTHER_OPTIONS]


async def ask_about_low_retrieval(
    ctx: StageContext, state: AgentState, options: list[InterruptOption], *, tagged: bool
) -> LowRetrievalChoice | Command:
    """Interrupt with the `retrieval_low` options; the answer becomes how the action goes on (or ends).

    `tagged`: the weak evidence came from documents the user tagged (or a set)."""
    answer = ask("retrieval_low", TAGGED_QUESTION if tagged else QUESTION, options, on_cancel=CANCEL_FEEDBACK)
    if isinstance(answer, Cancelled):
        return answer.command()
    said = tagged_answer(answer.value)  # checked against the question: an offered option, tags only with tag_docs
    if said.text == TAG_DOCS:
        if not said.tags:
            return Command(goto=FORMAT_NODE, update=end_turn(TAG_FEEDBACK))
        documents = await tagged_scope(ctx, state, said.document_ids, said.set_ids)
        if not documents:  # not ready, deleted, or not the user's: the question stays open
            raise InvalidAnswer("retrieval_low", "none of the tagged documents can be used. Tag a ready document.")
        return LowRetrievalChoice(documents=documents)
    return LowRetrievalChoice(
        web_search=said.text == WEB_SEARCH, disclaimer=said.text == CONTINUE, search_all=said.text == SEARCH_ALL
    )
