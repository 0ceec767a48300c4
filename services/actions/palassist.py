"""PalAssist in the action stage: the `retrieval_low` question (docs/architecture.md §7.4) and what each answer does.

Asked after retrieval when the passages found are only weakly related to the question, before
any answer is written, so that the user decides how to go on. What is offered fits the search
that was weak (issue #27): over tagged documents, searching all of the user's documents (tagging
"specific documents" is what they already did); over everything, tagging the documents that should
hold the answer. Searching the web and getting the weak answer with a disclaimer are always offered.
On resume LangGraph re-runs the node; retrieval is repeated (cheap) and the model calls before the
question are answered from the usage ledger.
"""

from __future__ import annotations

from dataclasses import dataclass

from langgraph.types import Command

from shared.contracts import InterruptOption
from shared.graph.palassist import Cancelled, ask, end_turn
from shared.graph.topology import FORMAT_NODE

TAG_DOCS, SEARCH_ALL, WEB_SEARCH, CONTINUE = "tag_docs", "search_all", "web_search", "continue"
QUESTION = "I couldn't find strong matches in the documents. Would you like me to:"
TAGGED_QUESTION = "I couldn't find strong matches in the documents you tagged. Would you like me to:"
TAG_OPTION = InterruptOption(id=TAG_DOCS, label="📄 Tag specific documents")
SEARCH_ALL_OPTION = InterruptOption(id=SEARCH_ALL, label="🔎 Search all my documents")
OTHER_OPTIONS = [
    InterruptOption(id=WEB_SEARCH, label="🌐 Search the web"),
    InterruptOption(id=CONTINUE, label="Continue anyway with disclaimer"),
]
DISCLAIMER = "Limited information available. Verification with source documents recommended."
TAG_FEEDBACK = "Please tag the documents that should contain the answer with @ and ask again."
CANCEL_FEEDBACK = "Ask again whenever you're ready."


@dataclass(frozen=True)
class LowRetrievalChoice:
    web_search: bool = False
    disclaimer: bool = False
    search_all: bool = False


def low_retrieval_options(tagged: bool) -> list[InterruptOption]:
    return [SEARCH_ALL_OPTION if tagged else TAG_OPTION, *OTHER_OPTIONS]


def ask_about_low_retrieval(tagged: bool) -> LowRetrievalChoice | Command:
    """Interrupt with the `retrieval_low` options; the answer becomes how the action goes on (or ends).

    `tagged`: the weak search was scoped to documents the user tagged (or a set)."""
    options = low_retrieval_options(tagged)
    answer = ask("retrieval_low", TAGGED_QUESTION if tagged else QUESTION, options, on_cancel=CANCEL_FEEDBACK)
    if isinstance(answer, Cancelled):
        return answer.command()
    choice = answer.value  # one of OPTIONS: checked against the question
    if choice == TAG_DOCS:
        return Command(goto=FORMAT_NODE, update=end_turn(TAG_FEEDBACK))
    return LowRetrievalChoice(
        web_search=choice == WEB_SEARCH, disclaimer=choice == CONTINUE, search_all=choice == SEARCH_ALL
    )
