"""The worksheet as an Excel workbook a reviewer fills in.

Three sheets: ``Worksheet`` (one row per rule; the status column only takes
Pass / Fail / N/A and colours its row), ``Summary`` (COUNTIFS formulas, so the
counts follow the reviewer's typing) and ``Stamp`` (what the worksheet was made
from and what was reviewed, read back by ``report``). Bytes are reproducible: fixed document dates
and zip entry times.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile

from openpyxl import Workbook
from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet
from openpyxl.writer.excel import ExcelWriter

from ..fields import SEVERITIES
from .files import FixedTimeZipFile, zip_time
from .worksheet import COLUMNS, STATUSES, Stamp, review_line, stamp_cells

ITEMS_SHEET, SUMMARY_SHEET, STAMP_SHEET = "Worksheet", "Summary", "Stamp"
WIDTHS = {"id": 11, "title": 60, "scope": 13, "stack": 12, "severity": 10, "gate": 18, "check": 11, "status": 10,
          "evidence": 50, "notes": 40, "threats": 24, "clauses": 60, "page": 40}
WRAPPED = {"title", "evidence", "notes"}
STATUS_FILLS = {"Pass": "C6EFCE", "Fail": "FFC7CE", "N/A": "E7E6E6"}
"""Excel's own good / bad / neutral colours."""
HEADER_FILL = PatternFill("solid", start_color="DDEBF7", end_color="DDEBF7")


def column_letter(name: str) -> str:
    """The sheet column of a worksheet field (``status`` -> ``H``)."""
    return get_column_letter(COLUMNS.index(name) + 1)


def _items_sheet(ws: Worksheet, rows: list[dict[str, str]]) -> None:
    ws.append(list(COLUMNS))
    for row in rows:
        ws.append([row.get(c, "") or None for c in COLUMNS])
    last = max(len(rows) + 1, 2)
    for i, name in enumerate(COLUMNS, start=1):
        letter = get_column_letter(i)
        ws.column_dimensions[letter].width = WIDTHS.get(name, 14)
        header = ws.cell(row=1, column=i)
        header.font, header.fill = Font(bold=True), HEADER_FILL
        if name in WRAPPED:
            for r in range(2, last + 1):
                ws.cell(row=r, column=i).alignment = Alignment(wrap_text=True, vertical="top")
    ws.freeze_panes = "A2"
    end = get_column_letter(len(COLUMNS))
    ws.auto_filter.ref = f"A1:{end}{last}"
    status = column_letter("status")
    rule = DataValidation(
        type="list", formula1='"' + ",".join(STATUSES) + '"', allow_blank=True, showErrorMessage=True,
        errorTitle="Status", error=f"Status is one of {', '.join(STATUSES)} (or empty until judged).",
        promptTitle="Status", prompt=" / ".join(STATUSES), showInputMessage=True,
    )
    rule.add(f"{status}2:{status}{last}")
    ws.add_data_validation(rule)
    for value, colour in STATUS_FILLS.items():
        fill = PatternFill("solid", start_color=colour, end_color=colour)
        # Excel compares text case-insensitively, so "pass" colours like "Pass"
        ws.conditional_formatting.add(f"A2:{end}{last}", FormulaRule(formula=[f'${status}2="{value}"'], fill=fill))


def _summary_sheet(ws: Worksheet, stamp: Stamp, last: int) -> None:
    items = quote_sheetname(ITEMS_SHEET)
    status_range = f"{items}!${column_letter('status')}$2:${column_letter('status')}${last}"
    severity_range = f"{items}!${column_letter('severity')}$2:${column_letter('severity')}${last}"
    ws.append(["MCP server audit worksheet: summary"])
    ws.append([f"Doctrine {stamp.doctrine_version}, commit {stamp.commit}, exported {stamp.date}, filters: {stamp.filters_text}"
               f"{review_line(stamp)}"])
    ws.append(["Counts update as the Worksheet sheet is filled in."])
    ws.append([])
    ws.append(["severity", *STATUSES, "unfilled", "total"])
    first = ws.max_row + 1
    for severity in SEVERITIES:
        r = ws.max_row + 1
        counts = [f'=COUNTIFS({severity_range},"{severity}",{status_range},"{s}")' for s in STATUSES]
        unfilled = f'=COUNTIFS({severity_range},"{severity}",{status_range},"")'
        ws.append([severity.upper(), *counts, unfilled, f"=SUM(B{r}:{get_column_letter(len(STATUSES) + 2)}{r})"])
    end = ws.max_row
    ws.append(["TOTAL", *(f"=SUM({get_column_letter(c)}{first}:{get_column_letter(c)}{end})" for c in range(2, len(STATUSES) + 4))])
    ws["A1"].font = Font(bold=True, size=14)
    for cell in ws[5]:
        cell.font, cell.fill = Font(bold=True), HEADER_FILL
    ws.column_dimensions["A"].width = 12
    for c in range(2, len(STATUSES) + 4):
        ws.column_dimensions[get_column_letter(c)].width = 10


def _stamp_sheet(ws: Worksheet, stamp: Stamp) -> None:
    ws.append(["field", "value"])  # one row per stamp column: key in A, value in B
    for key, value in stamp_cells(stamp).items():
        ws.append([key, value])
    ws["A1"].font = ws["B1"].font = Font(bold=True)
    ws.column_dimensions["A"].width, ws.column_dimensions["B"].width = 18, 44


def build_workbook(rows: list[dict[str, str]], stamp: Stamp) -> Workbook:
    wb = Workbook()
    items = wb.active
    items.title = ITEMS_SHEET
    _items_sheet(items, rows)
    _summary_sheet(wb.create_sheet(SUMMARY_SHEET), stamp, max(len(rows) + 1, 2))
    _stamp_sheet(wb.create_sheet(STAMP_SHEET), stamp)
    day = _midnight(stamp.date)
    wb.properties.created = wb.properties.modified = day
    wb.properties.creator = wb.properties.lastModifiedBy = "mcp-handbook"
    wb.properties.title = f"MCP server audit worksheet, doctrine {stamp.doctrine_version}"
    wb.calculation.fullCalcOnLoad = True  # no cached values: ask the spreadsheet to compute the summary on open
    return wb


def _midnight(date: str) -> dt.datetime:
    try:
        return dt.datetime.combine(dt.date.fromisoformat(date), dt.time())
    except ValueError:
        return dt.datetime(1980, 1, 1)


def workbook_bytes(rows: list[dict[str, str]], stamp: Stamp) -> bytes:
    """The workbook's bytes; the same rows and stamp always give the same bytes."""
    buffer = io.BytesIO()
    archive = FixedTimeZipFile(buffer, "w", zipfile.ZIP_DEFLATED, allowZip64=True)
    archive.fixed_time = zip_time(stamp.date)
    # ExcelWriter, not Workbook.save: save() overwrites the modified date with now
    ExcelWriter(build_workbook(rows, stamp), archive).save()
    return buffer.getvalue()
