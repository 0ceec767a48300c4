"""What the rendition reads of a .docx package (services/ingest/word.py writes it as HTML): its XML
parts, paragraph styles and lists.

The package is untrusted input: its parts are read with size limits, and a part that declares a DTD
is refused (a DOCX never has one; entity expansion is how XML bombs work). Names are compared without
their namespaces: Transitional and Strict OOXML name the same elements under different namespaces.
"""

from __future__ import annotations

import posixpath
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from xml.etree import ElementTree

from shared.documents.filetype import ParseError

MAX_PART_BYTES = 64 * 1024 * 1024  # uncompressed; a 500-page report's document.xml is about 10 MB
MAX_HEADING_LEVEL = 6
BULLET = "•"  # Word's bullet glyphs sit in the Symbol font's private-use area


def local(name: str) -> str:
    return name.rsplit("}", 1)[-1]


def attr(element: ElementTree.Element, name: str) -> str | None:
    return next((value for key, value in element.attrib.items() if local(key) == name), None)


def children(element: ElementTree.Element, name: str) -> Iterator[ElementTree.Element]:
    return (child for child in element if local(child.tag) == name)


def child(element: ElementTree.Element | None, name: str) -> ElementTree.Element | None:
    return None if element is None else next(children(element, name), None)


def val(element: ElementTree.Element | None, name: str) -> str | None:
    """The `val` of `element`'s child `name` (`<w:pStyle w:val="Heading1"/>`), None where absent."""
    found = child(element, name)
    return None if found is None else attr(found, "val")


def on(element: ElementTree.Element | None) -> bool:
    """A toggle property (`<w:b/>`, `<w:b w:val="0"/>`) is on unless its value says off."""
    return element is not None and (attr(element, "val") or "true").lower() not in ("0", "false", "off", "none")


def int_of(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def part(package: zipfile.ZipFile, name: str, limit: int = MAX_PART_BYTES) -> bytes | None:
    """A part's bytes, None where the package has no such part; `ParseError` where it is larger
    than `limit` uncompressed or cannot be read (a damaged or encrypted member)."""
    try:
        info = package.getinfo(name)
    except KeyError:
        return None
    if info.file_size > limit:
        raise ParseError(f"corrupt docx file: {name} is larger than {limit // 2**20} MB uncompressed")
    try:
        return package.read(info)
    except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError) as exc:
        raise ParseError(f"corrupt docx file: {name} cannot be read ({exc})") from exc


def parsed(package: zipfile.ZipFile, name: str) -> ElementTree.Element | None:
    """A part's XML, None where the package has no such part."""
    data = part(package, name)
    if data is None:
        return None
    if b"<!DOCTYPE" in data[:4096].upper():
        raise ParseError(f"corrupt docx file: {name} declares a DTD")
    try:
        return ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise ParseError(f"corrupt docx file: {name} is not well-formed XML ({exc})") from exc


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


def relationships(package: zipfile.ZipFile, name: str, folder: str) -> Iterator[tuple[str, str, str]]:
    """(id, kind, part name) of each relationship in a .rels part to a part of the package: the
    kind is the last segment of its type URI ("…/relationships/styles"), a target is relative to
    `folder` unless it starts at the package's root."""
    root = parsed(package, name)
    for rel in root if root is not None else ():
        kind, target = attr(rel, "Type"), attr(rel, "Target")
        if kind and target and attr(rel, "TargetMode") != "External":
            path = target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
            yield attr(rel, "Id") or "", kind.rsplit("/", 1)[-1], posixpath.normpath(path)
