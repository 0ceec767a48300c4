"""How a document is named to people: "Title (Version)" (feature spec, document library).

The seed's versions are years or editions ("2024", "Q1 2025"), which read well in brackets. A bare
revision number does not: "Retention Policy (1)" looks like a count or a footnote, so a short
number (or dotted number) is shown as a revision, "Retention Policy (v1)". The same rule is
`versionLabel` in the workspace's format.js; both are checked by tests.
"""

from __future__ import annotations

import re

# Up to three digits, optionally dotted: "1", "2.1", "10.0.3" — revisions, not years.
_REVISION = re.compile(r"\d{1,3}(\.\d+)*")


def version_label(version: str) -> str:
    version = version.strip()
    return f"v{version}" if _REVISION.fullmatch(version) else version


def document_label(title: str, version: str) -> str:
    """ "Title (Version)"; a document without a version is its title."""
    label = version_label(version or "")
    return f"{title} ({label})" if label else title


def base_title(label: str) -> str:
    """ "Title (Version)" → "Title"."""
    return re.sub(r"\s*\([^)]*\)\s*$", "", label).strip()
