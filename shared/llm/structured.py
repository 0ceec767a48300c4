"""Structured output across servers that support different amounts of it (docs/model-servers.md).

OpenAI, vLLM, LM Studio and recent Ollama take `response_format: json_schema`; llama.cpp's
Python server takes only `json_object` (with the schema, which it turns into a grammar); some
servers take neither. Three modes, strongest first:

- `json_schema`: the server constrains the answer to the schema;
- `json_object`: the server is asked for JSON and given the schema, and the prompt states it too;
- `prompt`: nothing is asked of the server; the prompt states the schema and the answer is
  parsed tolerantly (code fences, prose around the object, trailing commas).

`FormatBook` remembers, per model, the strongest mode its server accepted, so a refusal is paid
for once per process rather than on every call.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel

from shared.llm.lessons import LessonBook

StructuredMode = Literal["json_schema", "json_object", "prompt"]
MODES: tuple[StructuredMode, ...] = ("json_schema", "json_object", "prompt")

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def strict_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of `schema` in the closed form strict structured output accepts: every
    property required, no extra properties, no titles or defaults."""

    def close(node: Any) -> Any:
        if isinstance(node, dict):
            node = {k: close(v) for k, v in node.items() if k not in ("default", "title")}
            if node.get("type") == "object" and "properties" in node:
                node["additionalProperties"] = False
                node["required"] = list(node["properties"])
            return node
        if isinstance(node, list):
            return [close(v) for v in node]
        return node

    return close(schema.model_json_schema())


def schema_instruction(schema: type[BaseModel]) -> str:
    """What a prompt says when the server is not (or not fully) constraining the answer."""
    compact = json.dumps(strict_schema(schema), separators=(",", ":"))
    return "Reply with only one JSON object, no prose and no code fence, that matches this JSON schema:\n" + compact


def _first_json_value(text: str) -> str | None:
    """The first balanced {...} or [...] in `text`, skipping brackets inside strings."""
    start = next((i for i, ch in enumerate(text) if ch in "{["), None)
    if start is None:
        return None
    depth, in_string, escaped = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return None


def parse_json(text: str) -> Any:
    """JSON out of a model's answer: as is, else from a code fence, else the first balanced
    object in prose, each also with trailing commas removed. Raises ValueError when none parses."""
    candidates = [text.strip()]
    fenced = _FENCE.search(text)
    if fenced:
        candidates.append(fenced.group(1).strip())
    embedded = _first_json_value(text)
    if embedded:
        candidates.append(embedded)
    for candidate in candidates:
        for variant in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
            try:
                return json.loads(variant)
            except json.JSONDecodeError:
                continue
    raise ValueError(f"no JSON object in the answer ({len(text)} characters)")


class FormatBook:
    """Per model, the structured-output mode to use; `forced` (a mode, or `auto`) pins it. What a server
    refused is remembered in `lessons` (shared by the process's services, kept across processes)."""

    # A server is upgraded now and then: a refusal is believed for a day.
    REMEMBERED_S = 86400.0

    def __init__(self, forced: StructuredMode | Literal["auto"] = "auto", lessons: LessonBook | None = None) -> None:
        self._forced: StructuredMode | None = None if forced == "auto" else forced
        self._lessons = lessons or LessonBook()

    def mode(self, model: str) -> StructuredMode:
        if self._forced is not None:
            return self._forced
        learned = self._lessons.mode(model)
        return next((m for m in MODES if m == learned), MODES[0])

    def refused(self, model: str, mode: StructuredMode) -> StructuredMode | None:
        """The server refused `mode`: the next weaker mode to use from now on, or None when there
        is none (or the mode is pinned by configuration, which is then simply wrong for this server)."""
        if self._forced is not None or mode == MODES[-1]:
            return None
        # Concurrent calls may report the same refusal late: never step back up.
        weaker = MODES[max(MODES.index(mode) + 1, MODES.index(self.mode(model)))]
        self._lessons.learn_mode(model, weaker, self.REMEMBERED_S)
        return weaker
