"""PalAssist in the action stage: the `retrieval_low` question (docs/architecture.md §7.4) and what each answer does.

Asked after retrieval when the passages found are only weakly related to the question, before
any answer is written, so that the user decides between tagging documents, searching the web,
or getting the weak answer with a disclaimer. On resume LangGraph re-runs the node; retrieval
is repeated (cheap) and the model calls before the question are answered from the usage ledger.
"""

from __future__ import annotations

from dataclasses import dataclass

from langgraph.types import Command

from shared.contracts import InterruptOption
from shared.graph.palassist import Cancelled, ask, end_turn
from shared.graph.topology import FORMAT_NODE

TAG_DOCS, WEB_SEARCH, CONTINUE = "tag_docs", "web_search", "continue"
QUESTION = "I couldn't find strong matches in the documents. Would you like me to:"
OPTIONS = [
    InterruptOption(id=TAG_DOCS, label="📄 Tag specific documents"),
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


def ask_about_low_retrieval() -> LowRetrievalChoice | Command:
    """Interrupt with the `retrieval_low` options; the answer becomes how the action goes on (or ends)."""
    answer = ask("retrieval_low", QUESTION, OPTIONS, on_cancel=CANCEL_FEEDBACK)
    if isinstance(answer, Cancelled):
        return answer.command()
    choice = answer.value  # one of OPTIONS: checked against the question
    if choice == TAG_DOCS:
        return Command(goto=FORMAT_NODE, update=end_turn(TAG_FEEDBACK))
    return LowRetrievalChoice(web_search=choice == WEB_SEARCH, disclaimer=choice == CONTINUE)
