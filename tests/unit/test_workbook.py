"""A workbook's rendition writes each visible sheet as a ruled table of its printed values, so its
rows are read with their column headers (services/ingest/workbook.py)."""

from __future__ import annotations

import io
import zipfile

import pytest

from services.ingest.pages import open_pages
from services.ingest.workbook import workbook_html
from shared.documents.filetype import ParseError
from tests.unit.test_document_pages import DOC_RELS, PACKAGE_RELS, SPREADSHEET_NS, zip_of

STYLES = (
    f'<styleSheet xmlns="{SPREADSHEET_NS}"><numFmts count="1"><numFmt numFmtId="164" formatCode="d-mmm-yy"/>'
    '</numFmts><cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="9"/>'
    "</cellXfs></styleSheet>"
)


def cell(ref: str, value: str | float | bool, style: int = 0) -> str:
    if isinstance(value, bool):
        return f'<c r="{ref}" t="b"><v>{int(value)}</v></c>'
    if isinstance(value, str):
        return f'<c r="{ref}" t="inlineStr"><is><t>{value}</t></is></c>'
    return f'<c r="{ref}" s="{style}"><v>{value}</v></c>'


def workbook(sheets: dict[str, str], hidden: tuple[str, ...] = ()) -> bytes:
    """A real .xlsx written by hand: sheets of `<row>` XML by name, inline strings, the styles above."""

    def rel(rid: str, kind: str, target: str) -> str:
        return f'<Relationship Id="{rid}" Type="{DOC_RELS}/{kind}" Target="{target}"/>'

    state = ' state="hidden"'
    entries = "".join(
        f'<sheet name="{name}" sheetId="{i}" r:id="rId{i}"{state if name in hidden else ""}/>'
        for i, name in enumerate(sheets, start=1)
    )
    rels = "".join(rel(f"rId{i}", "worksheet", f"worksheets/sheet{i}.xml") for i in range(1, len(sheets) + 1))
    parts = {
        "[Content_Types].xml": '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
        "_rels/.rels": f'<Relationships xmlns="{PACKAGE_RELS}">{rel("rId1", "officeDocument", "xl/workbook.xml")}'
        "</Relationships>",
        "xl/workbook.xml": f'<workbook xmlns="{SPREADSHEET_NS}" xmlns:r="{DOC_RELS}">'
        f"<sheets>{entries}</sheets></workbook>",
        "xl/_rels/workbook.xml.rels": f'<Relationships xmlns="{PACKAGE_RELS}">{rels}'
        f"{rel('rIdS', 'styles', 'styles.xml')}</Relationships>",
        "xl/styles.xml": STYLES,
    }
    for i, rows in enumerate(sheets.values(), start=1):
        parts[f"xl/worksheets/sheet{i}.xml"] = f'<worksheet xmlns="{SPREADSHEET_NS}">{rows}</worksheet>'
    return zip_of({name: text.encode() for name, text in parts.items()})


SCHEDULE = (
    "<sheetData>"
    f'<row r="1">{cell("A1", "Record")}{cell("B1", "Retention")}{cell("C1", "Owner")}{cell("D1", "Reviewed")}</row>'
    f'<row r="2">{cell("A2", "Payroll records")}{cell("B2", "Seven years after the tax year")}'
    f"{cell('C2', 'Finance')}{cell('D2', 45580, 1)}</row>"
    f'<row r="4">{cell("A4", "Job applications")}{cell("B4", "Twelve months after the decision")}'
    f"{cell('C4', 'People team')}{cell('D4', 45292, 2)}</row>"
    "</sheetData>"
)


def test_a_sheet_is_read_a_row_at_a_time_with_its_column_headers():
    opened = open_pages(workbook({"Retention schedule": SCHEDULE}), "schedule.xlsx", max_pages=10)
    text = opened.parsed.pages[0].text
    assert "Payroll records — Retention: Seven years after the tax year · Owner: Finance · Reviewed: 2024-10-15." in (
        text
    )
    assert "Job applications — Retention: Twelve months after the decision · Owner: People team" in text
    assert text.startswith("Retention schedule")


def test_values_print_as_the_sheet_shows_them_and_hidden_sheets_are_left_out():
    rows = (
        "<sheetData>"
        f'<row r="1">{cell("A1", "Control")}{cell("B1", "Met")}{cell("C1", "Coverage")}{cell("D1", "Since")}</row>'
        f'<row r="2">{cell("A2", "AC-7")}{cell("B2", True)}{cell("C2", 0.85, 3)}{cell("D2", 43831.5, 1)}</row>'
        '</sheetData><mergeCells count="1"><mergeCell ref="A3:D3"/></mergeCells>'
    )
    html, size = workbook_html(workbook({"Controls": rows, "Scratch": SCHEDULE}, hidden=("Scratch",)))
    assert size == (792.0, 612.0)
    assert "<td>TRUE</td><td>85%</td><td>2020-01-01 12:00</td>" in html
    assert "<h2>Controls</h2>" in html and "Scratch" not in html and "Payroll" not in html


def test_merged_cells_span():
    rows = (
        '<sheetData><row r="1">'
        f'{cell("A1", "Quarterly")}</row><row r="2">{cell("A2", "AC-22")}{cell("B2", "Review public content")}</row>'
        '</sheetData><mergeCells count="1"><mergeCell ref="A1:B1"/></mergeCells>'
    )
    html, _ = workbook_html(workbook({"Schedule": rows}))
    assert '<tr><td colspan="2">Quarterly</td></tr>' in html


def with_dtd_sheet() -> bytes:
    """A workbook whose sheet declares a DTD (how an XML bomb's entities are declared)."""
    with zipfile.ZipFile(io.BytesIO(workbook({"Schedule": SCHEDULE}))) as package:
        parts = {name: package.read(name) for name in package.namelist()}
    parts["xl/worksheets/sheet1.xml"] = b'<!DOCTYPE x [<!ENTITY a "aaaa">]>' + parts["xl/worksheets/sheet1.xml"]
    return zip_of(parts)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"PK\x03\x04 broken", "corrupt xlsx file"),
        (zip_of({"[Content_Types].xml": b"<Types/>"}), "no workbook part"),
        (with_dtd_sheet(), "corrupt xlsx file: xl/worksheets/sheet1.xml declares a DTD"),
    ],
)
def test_a_broken_workbook_is_refused_with_its_reason(data: bytes, reason: str):
    with pytest.raises(ParseError, match=reason):
        workbook_html(data)
