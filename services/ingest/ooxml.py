"""Reading an Office Open XML package (.docx, .xlsx, .pptx) as untrusted input: its parts with size
limits, its XML with no DTD (a package never has one; entity expansion is how XML bombs work), its
relationships and pictures; names compared without their namespaces, since Transitional and Strict
OOXML name the same elements under different namespaces."""

from __future__ import annotations

import base64
import posixpath
import zipfile
import zlib
from collections.abc import Iterator
from xml.etree import ElementTree

from shared.documents.filetype import ParseError

MAX_PART_BYTES = 64 * 1024 * 1024  # uncompressed; a 500-page report's document.xml is about 10 MB
MAX_PICTURE_BYTES = 20 * 1024 * 1024
EMU_PER_POINT = 12700
PICTURE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".bmp": "image/bmp",
    ".tif": "image/tiff",
    ".tiff": "image/tiff",
}
# The file type a refusal names, from the folder of the failing part (ECMA-376 part 1 names them).
_KIND_OF_FOLDER = {"word": "docx", "xl": "xlsx", "ppt": "pptx"}


def corrupt(name: str) -> str:
    """The start of a refusal of the package whose part `name` failed: "corrupt xlsx file: …"."""
    return f"corrupt {_KIND_OF_FOLDER.get(name.split('/', 1)[0], 'Office')} file: {name}"


def local(name: str) -> str:
    return name.rsplit("}", 1)[-1]


def attr(element: ElementTree.Element, name: str) -> str | None:
    return next((value for key, value in element.attrib.items() if local(key) == name), None)


def relationship_id(element: ElementTree.Element) -> str | None:
    """The relationship id an element names (`r:id`), not an `id` of its own beside it (a slide's
    `<p:sldId id="256" r:id="rId7"/>`)."""
    return next((v for k, v in element.attrib.items() if k.startswith("{") and local(k) == "id"), None)


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
        raise ParseError(f"{corrupt(name)} is larger than {limit // 2**20} MB uncompressed")
    try:
        return package.read(info)
    except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError) as exc:
        raise ParseError(f"{corrupt(name)} cannot be read ({exc})") from exc


def parsed(package: zipfile.ZipFile, name: str) -> ElementTree.Element | None:
    """A part's XML, None where the package has no such part."""
    data = part(package, name)
    if data is None:
        return None
    if b"<!DOCTYPE" in data[:4096].upper():
        raise ParseError(f"{corrupt(name)} declares a DTD")
    try:
        return ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise ParseError(f"{corrupt(name)} is not well-formed XML ({exc})") from exc


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


def pictures(package: zipfile.ZipFile, parts: dict[str, str]) -> dict[str, str]:
    """A part's pictures (`parts`: relationship id → part name) as data URIs by relationship id: the
    formats MuPDF draws, each up to MAX_PICTURE_BYTES (a scan pasted into Word or onto a slide is how
    a document of pictures reaches OCR)."""
    uris = {}
    for rel_id, name in parts.items():
        mime = PICTURE_TYPES.get(posixpath.splitext(name)[1].lower())
        try:
            data = part(package, name, MAX_PICTURE_BYTES) if mime else None
        except ParseError:
            continue  # a picture too large or unreadable is left out, not the document
        if data is not None:
            uris[rel_id] = f"data:{mime};base64,{base64.b64encode(data).decode()}"
    return uris
