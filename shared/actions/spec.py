"""What one action is, as one record (docs/where-things-go.md, "A new action").

Everything that differs between actions lives in an `ActionSpec`: the words that name it, what the
resolver needs before it runs, the node that runs it and the model tasks it calls, and how the UI
shows it. The graph, the resolver, the offline engine, the prompts, the contracts, the CLI, the
AsyncAPI document and the workspace UI read the table (`shared/actions/table.py`) instead of
listing the actions again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Tier = Literal["small", "large"]


@dataclass(frozen=True)
class ActionTask:
    """A model task an action's node calls (docs/architecture.md §9): its routing and its prompt."""

    name: str
    tier: Tier
    temperature: float
    # The answer's token cap (shared/llm/tasks.py says why every task has one).
    max_tokens: int
    # "Writing the answer": the status line's words when the built-in engine stands in for a model.
    label: str
    # The task's instruction after the shared system prefix (shared/llm/prompts.py).
    instruction: str
    # The offline engine's handler that answers this task (a new task may reuse an existing one's).
    offline: str = ""

    @property
    def offline_handler(self) -> str:
        return self.offline or self.name


@dataclass(frozen=True)
class ActionSpec:
    """One action: the single place that says what it is and how each layer treats it."""

    name: str
    # Shown in the @-mention menu and on the answer's badge ("Inquire").
    label: str
    # The option in PalAssist's action question ("Ask a question").
    choice_label: str
    # The @-mention menu's hint under the label.
    hint: str
    # The status line while the action's node runs.
    status: str
    # How the intent prompt names the action ("inquire (answer a question)").
    intent_description: str
    # "module:function" of the LangGraph node; imported only by the action's worker.
    node: str
    tasks: tuple[ActionTask, ...]
    # How many resolved documents the action needs; fewer makes the resolver ask for more.
    documents_needed: int = 0
    # The question asked when documents are missing, and the feedback when the user cancels it
    # (empty: "I can't proceed with <action> without a specific document.").
    missing_docs: str = ""
    missing_docs_feedback: str = ""
    # Whether web results may join the documents' passages.
    web_allowed: bool = True
    # Whether the resolver must also find the requirements to check against (an audit's source).
    needs_source: bool = False
    # Nodes the action's worker runs after the action and before format_response, entered through
    # the support route (topology.route_answer); only the support answer has any.
    extra_nodes: tuple[str, ...] = ()
    # The offline engine's intent rule: words that ask for this action. None: never chosen by
    # words (inquire is the default when nothing else matched).
    intent_pattern: re.Pattern[str] | None = None
    # Words that join mentions without meaning anything else ("Compare @A and @B"), lower case.
    mention_words: frozenset[str] = field(default_factory=frozenset)
    # The badge's and the mention chip's colour (any CSS colour).
    colour: str = "var(--accent)"
