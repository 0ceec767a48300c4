"""What the rendition reads of a .docx package (services/ingest/word.py writes it as HTML): where its
parts are, its paragraph styles, lists and notes (services/ingest/ooxml.py reads the package)."""

from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass, field
from xml.etree import ElementTree

from services.ingest.ooxml import attr, child, children, int_of, local, relationships, val

MAX_HEADING_LEVEL = 6
BULLET = "•"  # Word's bullet glyphs sit in the Symbol font's private-use area


@dataclass(frozen=True)
class Style:
    """What the rendition reads of a paragraph style: the style it is based on, its heading level
    and the list it numbers its paragraphs in."""

    based_on: str | None
    heading: int | None
    numbering: tuple[str, int] | None


def _heading_level(name: str, outline: str | None) -> int | None:
    name = name.lower()
    if name == "title":
        return 1
    if name.startswith("heading ") and name[8:].isdigit():
        return min(int(name[8:]), MAX_HEADING_LEVEL)
    return min(int_of(outline, 9) + 1, MAX_HEADING_LEVEL) if outline is not None and int_of(outline, 9) < 9 else None


def numbering_of(ppr: ElementTree.Element | None) -> tuple[str, int] | None:
    """The list (numId) and level a paragraph's or a style's properties number it in."""
    num = child(ppr, "numPr")
    num_id = val(num, "numId")
    return None if num_id is None else (num_id, int_of(val(num, "ilvl"), 0))


def styles(root: ElementTree.Element | None) -> dict[str, Style]:
    styles: dict[str, Style] = {}
    for element in children(root, "style") if root is not None else ():
        style_id = attr(element, "styleId")
        if style_id is None or attr(element, "type") not in (None, "paragraph"):
            continue
        ppr = child(element, "pPr")
        styles[style_id] = Style(
            based_on=val(element, "basedOn"),
            heading=_heading_level(val(element, "name") or "", val(ppr, "outlineLvl")),
            numbering=numbering_of(ppr),
        )
    return styles


_ROMAN_VALUES = (1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1)
_ROMAN_NUMERALS = ("m", "cm", "d", "cd", "c", "xc", "l", "xl", "x", "ix", "v", "iv", "i")


def _roman(number: int) -> str:
    out = ""
    for value, letters in zip(_ROMAN_VALUES, _ROMAN_NUMERALS, strict=True):
        while number >= value:
            out, number = out + letters, number - value
    return out


def _letters(number: int) -> str:
    """Word's letter numbering: a…z, then aa…zz."""
    return chr(ord("a") + (number - 1) % 26) * ((number - 1) // 26 + 1)


def _formatted(number: int, fmt: str) -> str:
    return {
        "lowerLetter": _letters(number),
        "upperLetter": _letters(number).upper(),
        "lowerRoman": _roman(number),
        "upperRoman": _roman(number).upper(),
    }.get(fmt, str(number))


@dataclass(frozen=True)
class Level:
    fmt: str
    text: str
    start: int


@dataclass
class Numbering:
    """The document's lists (numbering.xml) and the counters a walk through its paragraphs keeps, so
    that an item prints the label Word prints for it ("2.3", "b)", a bullet)."""

    levels: dict[str, dict[int, Level]]
    counters: dict[str, dict[int, int]] = field(default_factory=dict)

    @classmethod
    def read(cls, root: ElementTree.Element | None) -> Numbering:
        abstract: dict[str, dict[int, Level]] = {}
        for element in children(root, "abstractNum") if root is not None else ():
            levels = {}
            for lvl in children(element, "lvl"):
                levels[int_of(attr(lvl, "ilvl"), 0)] = Level(
                    fmt=val(lvl, "numFmt") or "decimal",
                    text=val(lvl, "lvlText") or "",
                    start=int_of(val(lvl, "start"), 1),
                )
            abstract[attr(element, "abstractNumId") or ""] = levels
        lists = {}
        for num in children(root, "num") if root is not None else ():
            lists[attr(num, "numId") or ""] = abstract.get(val(num, "abstractNumId") or "", {})
        return cls(levels=lists)

    def label(self, num_id: str, level: int) -> str:
        levels = self.levels.get(num_id)
        if not levels or level not in levels:
            return ""
        counts = self.counters.setdefault(num_id, {})
        counts[level] = counts.get(level, levels[level].start - 1) + 1
        for deeper in [k for k in counts if k > level]:
            del counts[deeper]
        this = levels[level]
        if this.fmt == "bullet":
            return BULLET
        if this.fmt == "none":
            return ""
        text = this.text
        for k, lvl in levels.items():
            if f"%{k + 1}" in text:
                text = text.replace(f"%{k + 1}", _formatted(counts.get(k, lvl.start), lvl.fmt))
        return text


def notes(root: ElementTree.Element | None, kind: str) -> dict[str, ElementTree.Element]:
    """A notes part's footnotes or endnotes by `kind` ("foo", "end") and id, less the separator
    lines Word keeps there as notes of their own."""
    found = {}
    for note in root if root is not None else ():
        if local(note.tag) in ("footnote", "endnote") and attr(note, "type") in (None, "normal"):
            found[f"{kind}{attr(note, 'id')}"] = note
    return found


@dataclass(frozen=True)
class Parts:
    """Where a package keeps what the rendition reads: the document part, the parts it relates to by
    kind ("styles", "numbering", "footnotes", "endnotes") and its pictures by relationship id."""

    document: str
    related: dict[str, str]
    pictures: dict[str, str]


def main_parts(package: zipfile.ZipFile) -> Parts:
    """The package's parts as their relationships name them; Word's usual names where a relationship
    part is missing (some generators write none)."""
    document = "word/document.xml"
    for _, kind, target in relationships(package, "_rels/.rels", ""):
        if kind == "officeDocument":
            document = target
    folder, name = posixpath.split(document)
    related: dict[str, str] = {}
    pictures = {}
    for rel_id, kind, target in relationships(package, posixpath.join(folder, "_rels", f"{name}.rels"), folder):
        related.setdefault(kind, target)
        if kind == "image":
            pictures[rel_id] = target
    for kind in ("styles", "numbering", "footnotes", "endnotes"):
        related.setdefault(kind, posixpath.join(folder, f"{kind}.xml"))
    return Parts(document=document, related=related, pictures=pictures)
