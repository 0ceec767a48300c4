"""Reading TipTap JSON: mention nodes become explicit ids, the rest becomes `clean_query`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from shared.actions import action_specs

# Words that join mentions without referring to anything ("Compare @Doc1 and @Doc2", "@Summarize
# @Policy"): a message of mentions and these words (or an action's own, from its record) alone
# still needs no model (docs/architecture.md §7.2).
CONNECTORS = frozenset({"and", "or", "vs", "versus", "with", "against", "plus", "to", "&", "+", ",", "please"})


def connectors() -> frozenset[str]:
    return CONNECTORS.union(*(spec.mention_words for spec in action_specs()))


@dataclass
class Mentions:
    doc_ids: list[str] = field(default_factory=list)
    set_ids: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    web: bool = False
    text: str = ""

    @property
    def pure_mention(self) -> bool:
        """Only mentions (joined at most by connectors or an action verb): nothing for a model to interpret."""
        has_mentions = bool(self.doc_ids or self.set_ids or self.actions or self.web)
        words = re.findall(r"[\w&+]+|,", self.text.lower())
        joining = connectors()
        return has_mentions and all(w in joining for w in words)


def parse_tiptap(doc: dict[str, Any] | None) -> Mentions:
    mentions = Mentions()
    if not doc:
        return mentions
    parts: list[str] = []

    def walk(node: Any) -> None:
        if not isinstance(node, dict):
            return
        kind = node.get("type")
        if kind == "mention":
            attrs = node.get("attrs") or {}
            category, ident = attrs.get("category"), attrs.get("id")
            if category == "document" and ident:
                mentions.doc_ids.append(str(ident))
            elif category == "set" and ident:
                mentions.set_ids.append(str(ident))
            elif category == "action" and ident:
                mentions.actions.append(str(ident))
            elif category == "web":
                mentions.web = True
            return
        if kind == "text":
            parts.append(str(node.get("text", "")))
        for child in node.get("content") or []:
            walk(child)
        if kind in ("paragraph", "heading"):
            parts.append("\n")

    walk(doc)
    mentions.text = " ".join(" ".join(parts).split())
    return mentions
