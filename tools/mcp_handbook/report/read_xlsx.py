"""Read a filled XLSX worksheet back: the ``Worksheet`` sheet's rows and the ``Stamp`` sheet."""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from typing import Any

from ..export.worksheet import ADDED_COLUMNS, READ_COLUMNS
from .places import Place, Problem, column_letter
from .read import MAX_ROWS, STAMP_KEYS, Cell, Entry, Filled, cells_of, match_columns, too_many_rows

ITEMS_SHEET, STAMP_SHEET = "Worksheet", "Stamp"
MAX_UNPACKED_BYTES = 256 * 1024 * 1024
"""Most a workbook may unpack to (a zip of a few kilobytes can claim gigabytes); an exported one unpacks to well
under a megabyte."""
MAX_PARTS = 10_000
"""Most files inside the workbook's zip."""
MAX_COLUMNS = 64
"""Columns read from each row (the worksheet has about twenty; a sheet may claim 16,384)."""


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _unpacked_problem(data: bytes, file: str) -> Problem | None:
    """Why the workbook must not be opened: more parts or unpacked bytes than any worksheet has (a zip bomb)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            parts = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        return Problem(Place(file), f"is not a readable XLSX workbook (damaged or truncated?): {type(exc).__name__}: {exc}")
    if len(parts) > MAX_PARTS:
        return Problem(Place(file), f"the workbook holds {len(parts):,} files; a worksheet holds a few dozen")
    if sum(p.file_size for p in parts) > MAX_UNPACKED_BYTES:
        return Problem(Place(file), f"the workbook unpacks to more than {MAX_UNPACKED_BYTES // 2**20} MiB; a worksheet "
                                    "unpacks to under one (is it the right file?)")
    return None


def _open(data: bytes, file: str):
    from openpyxl import load_workbook  # imported only for workbooks: it is the slowest import here

    refused = _unpacked_problem(data, file)
    if refused:
        return None, refused
    try:
        return load_workbook(io.BytesIO(data), read_only=True, data_only=True), None
    except Exception as exc:  # a damaged zip or XML fails in many library-specific ways; none may become a traceback
        return None, Problem(Place(file), f"is not a readable XLSX workbook (damaged or truncated?): {type(exc).__name__}: {exc}")


def _stamp(workbook: Any, file: str) -> tuple[dict[str, Cell], list[Problem]]:
    if STAMP_SHEET not in workbook.sheetnames:
        return {}, [Problem(Place(file), f"no {STAMP_SHEET!r} sheet: the worksheet's stamp (doctrine version, commit) is missing")]
    stamp = {}
    for r, row in enumerate(workbook[STAMP_SHEET].iter_rows(min_row=1, max_row=MAX_ROWS, max_col=2, values_only=True), start=1):
        key = _text(row[0] if row else None).lower()
        if key in STAMP_KEYS:
            stamp[key] = Cell(_text(row[1] if len(row) > 1 else None), Place(file, sheet=STAMP_SHEET, row=r, column="B", name=key))
    return stamp, []


def read_xlsx(data: bytes, file: str) -> tuple[Filled | None, list[Problem]]:
    workbook, failure = _open(data, file)
    if failure:
        return None, [failure]
    try:
        return _read(workbook, file)
    finally:
        workbook.close()


def _read(workbook: Any, file: str) -> tuple[Filled | None, list[Problem]]:
    if ITEMS_SHEET not in workbook.sheetnames:
        return None, [Problem(Place(file), f"no {ITEMS_SHEET!r} sheet (sheets: {', '.join(workbook.sheetnames)})")]
    rows = [[_text(v) for v in row]
            for row in workbook[ITEMS_SHEET].iter_rows(max_row=MAX_ROWS + 2, max_col=MAX_COLUMNS, values_only=True)]
    while rows and not any(rows[-1]):  # the sheet's claimed size pads it with empty rows
        rows.pop()
    if len(rows) > MAX_ROWS + 1:
        return None, [too_many_rows(Place(file, sheet=ITEMS_SHEET, row=MAX_ROWS + 2))]
    if not rows:
        return None, [Problem(Place(file, sheet=ITEMS_SHEET), "the sheet is empty")]
    header = rows[0]

    def place_of(r: int):
        return lambda i: Place(file, sheet=ITEMS_SHEET, row=r, column=column_letter(i), name=header[i] if i < len(header) else "")

    index, problems = match_columns(header, place_of(1), Place(file, sheet=ITEMS_SHEET, row=1), required=READ_COLUMNS, optional=ADDED_COLUMNS)
    stamp, found = _stamp(workbook, file)
    problems += found
    if "doctrine_version" not in stamp and not found:
        problems.append(Problem(Place(file, sheet=STAMP_SHEET), "no doctrine_version row: the worksheet's stamp is incomplete"))
    if not index.keys() >= set(READ_COLUMNS):
        return None, problems
    entries = tuple(
        Entry(Place(file, sheet=ITEMS_SHEET, row=r), cells_of(values, index, place_of(r)))
        for r, values in enumerate(rows[1:], start=2)
        if any(values)
    )
    return Filled(file, "xlsx", stamp, entries), problems
