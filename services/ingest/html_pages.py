"""The HTML that renditions are laid out from: the page size and the table rules they share.

The ruled-table reader (services/ingest/ruled_tables.py) reads a table as rows with their column
headers only where its cells are ruled, and MuPDF's HTML layout draws a table's rules only where
CSS asks for them. So every table a rendition lays out (a Word or Markdown table written here, an
HTML upload's own) is drawn with rules, declared once here.
"""

from __future__ import annotations

import re

LETTER = (612.0, 792.0)  # points: a document without a page size of its own is laid out on US Letter
RULED_TABLES = """
table { border-collapse: collapse; margin: 6pt 0 10pt 0 }
td, th { border: 0.75pt solid #555; padding: 2pt 4pt; vertical-align: top; text-align: left }
td p, th p { margin: 0 0 2pt 0 }
"""
# An upload's own stylesheet may turn its tables' borders off ("border: none", or a bottom rule
# only): these win over it, and change nothing else of its layout.
_RULES_OVER_AUTHOR = "table { border-collapse: collapse !important } td, th { border: 0.75pt solid #555 !important }"
_HEAD = re.compile(r"<head\b[^>]*>", re.IGNORECASE)
_HTML = re.compile(r"<html\b[^>]*>", re.IGNORECASE)


def html_page(css: str, body: str) -> str:
    """An HTML document of `body` styled by `css`."""
    return f"<html><head><style>{css}</style></head><body>{body}</body></html>"


def with_ruled_tables(text: str) -> str:
    """An HTML or XHTML document with its tables' cells ruled. The rules go first in its head, so
    that the document's own styles still apply to everything else; a document without a head gets
    them after its `<html>` tag, or at its start."""
    opening = _HEAD.search(text) or _HTML.search(text)
    at = opening.end() if opening else 0
    return f"{text[:at]}<style>{_RULES_OVER_AUTHOR}</style>{text[at:]}"


def ruled_html(data: bytes) -> tuple[str, tuple[float, float]]:
    """An HTML or XHTML upload with its tables' cells ruled, and the page size to lay it out on."""
    return with_ruled_tables(data.decode("utf-8-sig", errors="replace")), LETTER
