"""Render GDPRtEXT's `gdpr.json` (the Official Journal text L 119/1, structured) as the plain text
the benchmarks turn into a PDF: recitals, then every chapter, section and article with its
numbered paragraphs and lettered points, one block per paragraph (README.md beside this file).

    python evals/real/gdpr/render.py gdpr.json > evals/real/gdpr/gdpr-full.txt
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def article(node: dict[str, Any]) -> list[str]:
    out = [f"Article {node['number']}", node["title"]]
    for point in node["contents"]:
        lead = f"{point['number']}. " if point["type"] == "point" else ""
        out.append(f"{lead}{point['text']}")
        out += [f"({sub['number']}) {sub['text']}" for sub in point.get("subpoints", [])]
    return out


def part(node: dict[str, Any]) -> list[str]:
    if node["type"] == "article":
        return article(node)
    label = "CHAPTER" if node["type"] == "chapter" else "Section"
    out = [f"{label} {node['number']}", node["title"]]
    for child in node["contents"]:
        out += part(child)
    return out


def render(regulation: dict[str, Any]) -> str:
    blocks = [f"Regulation (EU) {regulation['regulation']} ({regulation['title']})", "Recitals"]
    blocks += [f"({r['number']}) {r['text']}" for r in regulation["recitals"]]
    for chapter in regulation["chapters"]:
        blocks += part(chapter)
    return "\n\n".join(" ".join(b.split()) for b in blocks) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))))
