"""A Markdown upload's rendition, laid out from the HTML its markup means.

Laid out as plain text (MuPDF's reader of .md), a Markdown knowledge-base article kept its markup in
every quote ("## Access", "**Owner**", "| Parameter | Description |") and its pipe tables were lines of
bars that no row reading could give headers to. Rendered by markdown-it-py (CommonMark with GitHub's
tables and strikethrough), headings are headings, lists are lists and a table is a ruled table the
ingest reads as rows with their column headers (services/ingest/ruled_tables.py).

Raw HTML in the Markdown is passed through, as an HTML upload is: MuPDF's layout runs no script and
fetches nothing (an image is drawn only from a data URI). GitHub's alerts ("> [!NOTE]") open with
their label ("Note:"), as GitHub prints them, not the markup. Angle brackets that name no HTML element
(a placeholder such as `<app-name>` or `<directory>` written outside code) are printed as written,
where a browser would drop them as an unknown tag. A static site's front matter (YAML or TOML
between `---` or `+++` lines) is not printed; its title is, as the document's heading, where the body
opens without one.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from services.ingest.html_pages import LETTER, RULED_TABLES, html_page

CSS = (
    """
body { font-family: sans-serif; font-size: 10.5pt; line-height: 1.3 }
h1 { font-size: 17pt } h2 { font-size: 14pt } h3 { font-size: 12pt } h4, h5, h6 { font-size: 10.5pt }
p { margin: 0 0 6pt 0 }
pre { font-family: monospace; font-size: 9pt; white-space: pre-wrap; margin: 0 0 8pt 12pt }
code { font-family: monospace }
blockquote { margin: 0 0 6pt 18pt }
@page { margin: 54pt }
"""
    + RULED_TABLES
)
_FRONT_MATTER = re.compile(r"\A(---|\+\+\+)[ \t]*\r?\n(.*?)\r?\n\1[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_TITLE = re.compile(r"""^title[ \t]*[:=][ \t]*(["']?)(.+?)\1[ \t]*$""", re.MULTILINE)
_OPENS_WITH_HEADING = re.compile(r"\A\s*<h1[ >]")
_ALERT = re.compile(r"^([ \t]*>[ \t]*)\[!(note|tip|important|warning|caution)\][ \t]*$", re.IGNORECASE | re.MULTILINE)
_TAG_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)")
# One line of names reads better than ninety.
HTML_ELEMENTS = frozenset(
    """a abbr address area article aside audio b bdi bdo blockquote body br button caption center cite
    code col colgroup data dd del details dfn div dl dt em figcaption figure font footer h1 h2 h3 h4 h5
    h6 head header hr html i img ins kbd label legend li main mark nav ol p picture pre q s samp section
    small source span strike strong style sub summary sup table tbody td tfoot th thead time tr tt u ul
    var wbr""".split()  # noqa: SIM905
)


def _raw_html(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """Raw HTML as written where every tag it opens or closes is an HTML element, else as text."""
    content = tokens[idx].content
    names = _TAG_NAME.findall(content)
    return content if all(name.lower() in HTML_ELEMENTS for name in names) else html.escape(content)


def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    parser.add_render_rule("html_inline", _raw_html)
    parser.add_render_rule("html_block", _raw_html)
    return parser


def front_matter(text: str) -> tuple[str | None, str]:
    """The title a static site's front matter gives (None without one) and the text after it."""
    found = _FRONT_MATTER.match(text)
    if found is None:
        return None, text
    title = _TITLE.search(found.group(2))
    return (title.group(2).strip() if title else None) or None, text[found.end() :]


def markdown_html(data: bytes) -> tuple[str, tuple[float, float]]:
    """The HTML of a Markdown document and the page size to lay it out on."""
    title, text = front_matter(data.decode("utf-8-sig", errors="replace"))
    text = _ALERT.sub(lambda alert: f"{alert.group(1)}**{alert.group(2).capitalize()}**:", text)
    body = _parser().render(text)
    if title and not _OPENS_WITH_HEADING.match(body):
        body = f"<h1>{html.escape(title)}</h1>{body}"
    return html_page(CSS, body), LETTER
