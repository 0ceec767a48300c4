"""Emitting composed answer text incrementally as `token` events while a node works."""

from __future__ import annotations

import re

from shared.graph.stream_parts import part_writer, token_part

_PIECES = re.compile(r"\S+\s*")


def stream_text(text: str, words_per_token: int = 8) -> None:
    """Write the text to the run's custom stream in small word groups (→ SSE `token`)."""
    writer = part_writer()
    words = _PIECES.findall(text)
    for start in range(0, len(words), words_per_token):
        writer(token_part("".join(words[start : start + words_per_token])))
