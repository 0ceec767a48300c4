"""The documentation holds together: every relative link in README.md and docs/ leads somewhere (a
file, and a heading for a `#fragment`), and every `PP_` variable the code reads is documented.

The settings are derived from the code, not listed here: the fields of `shared.config.Settings`
(`PP_` + the field's name, or one of its aliases) and every `PP_` variable read from the environment
in Python or shell anywhere in the repository."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
from pydantic import AliasChoices

from shared.config import Settings

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# Where code that reads settings lives; vendored and generated files are not ours.
CODE_DIRS = ("shared", "services", "policypal", "bench", "tests", "scripts", "examples", "deploy")
CODE_FILES = ("dev", ".ci/run")
SKIPPED_PARTS = {"vendor", "node_modules", ".venv", "__pycache__"}

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
ENV_READ = re.compile(
    r"""os\.environ(?:\.get|\.setdefault|\.pop)?\(\s*["'](PP_\w+)"""
    r"""|os\.environ\[\s*["'](PP_\w+)"""
    r"""|getenv\(\s*["'](PP_\w+)"""
    r"""|\$\{?(PP_[A-Z0-9_]+)"""
)


def prose(text: str) -> str:
    """The page without code blocks and code spans, whose brackets are not links."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading's anchor on the page, with GitHub's -1, -2 … for repeated headings."""
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text())):
        base = slug(heading)
        count = seen.get(base, 0)
        found.add(base if count == 0 else f"{base}-{count}")
        seen[base] = count + 1
    return found


def relative_links(page: Path) -> list[str]:
    return [t for t in LINK.findall(prose(page.read_text())) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in relative_links(page):
        path, _, fragment = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no file {dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest}")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            broken.append(f"{target}: no heading #{fragment} in {dest.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)} links nowhere:\n" + "\n".join(broken)


def test_the_readme_is_read_in_ten_minutes() -> None:
    lines = (ROOT / "README.md").read_text().count("\n")
    assert lines <= 250, f"README.md has {lines} lines; move detail to docs/"


def settings_variables() -> list[set[str]]:
    """Per setting, the names that set it (any one of them documented is enough)."""
    names = []
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        if isinstance(alias, AliasChoices):
            names.append({c for c in alias.choices if isinstance(c, str)})
        else:
            names.append({alias if isinstance(alias, str) else f"PP_{name.upper()}"})
    return names


def code_files() -> list[Path]:
    files = [ROOT / f for f in CODE_FILES if (ROOT / f).exists()]
    for folder in CODE_DIRS:
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in {".py", ".sh"} and not SKIPPED_PARTS & set(path.parts):
                files.append(path)
    return files


def environment_reads() -> dict[str, str]:
    """`PP_` variables read from the environment outside `Settings`, with a file that reads each."""
    reads: dict[str, str] = {}
    for path in code_files():
        for match in ENV_READ.finditer(path.read_text(errors="replace")):
            name = next(group for group in match.groups() if group)
            reads.setdefault(name, str(path.relative_to(ROOT)))
    return reads


def documented() -> set[str]:
    return set(re.findall(r"\bPP_[A-Z0-9_]+|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+", "".join(p.read_text() for p in PAGES)))


def test_the_settings_and_the_environment_reads_are_found() -> None:
    """The derivation below sees what it must: the settings and the variables `./dev` reads."""
    assert {"PP_DATABASE_URL"} in settings_variables()
    assert {"PP_VENV", "PP_TEST_BACKEND"} <= environment_reads().keys()


def test_every_setting_the_code_reads_is_documented() -> None:
    docs = documented()
    missing = sorted(" or ".join(sorted(names)) for names in settings_variables() if not names & docs)
    missing += sorted(f"{name} (read in {where})" for name, where in environment_reads().items() if name not in docs)
    assert not missing, "document these in docs/settings.md:\n" + "\n".join(missing)
