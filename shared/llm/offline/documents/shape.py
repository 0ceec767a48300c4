"""The action's expected document shape: with nothing named or referred to, an action that needs
documents continues with the conversation's latest ones (compare two, summarize and audit one).
"""

from __future__ import annotations

import re

from shared.actions import action_names, action_spec
from shared.llm.offline.documents.vocabulary import Evidence, Request

# "chapter 3", "article 17": a part of a document that the conversation has in front of it.
_LOCATOR = re.compile(r"\b(?:chapter|section|article|clause|page|paragraph|annex|appendix|schedule|part)\s+\d", re.I)


def add_shape_evidence(request: Request, evidence: Evidence) -> None:
    """The conversation's latest documents, as many as the action wants, when nothing else resolved."""
    if evidence.ids or evidence.candidates or not request.registry:
        return
    action = request.action or ""
    wanted = action_spec(action).documents_needed if action in action_names() else 0
    if _LOCATOR.search(request.text):
        wanted = max(wanted, 1)
    if wanted and len(request.registry) >= wanted:
        evidence.ids = list(request.registry.values())[-wanted:]
        evidence.sources.append(("inferred", "medium"))
