"""Read the text worksheets back: CSV (one clean table) and Markdown (header block plus a table)."""

from __future__ import annotations

import csv
import io
import re

from ..export.worksheet import ADDED_COLUMNS, READ_COLUMNS, REVIEW_LABELS
from .places import Place, Problem, column_letter
from .read import MAX_LINE_CHARS, MAX_ROWS, STAMP_KEYS, Cell, Entry, Filled, cells_of, decode, match_columns, too_many_rows

CSV_STAMP = STAMP_KEYS
MD_STAMP = {
    "doctrine version": "doctrine_version", "commit": "commit", "date": "date", "filters": "filters",
    **{label.lower(): name for name, label in REVIEW_LABELS.items()},
}
MD_STAMP_LINE = re.compile(
    r"^\s*[-*]\s*(" + "|".join(sorted(map(re.escape, MD_STAMP), key=len, reverse=True)) + r")\s*:\s*(.*?)\s*$", re.IGNORECASE
)
MD_SEPARATOR = re.compile(r"^\|?(\s*:?-{3,}:?\s*\|)+\s*:?-{0,}:?\s*$")


def _delimiter(text: str) -> str:
    """Spreadsheets in some locales save CSV with ``;`` or tabs; the header line tells."""
    first = text.split("\n", 1)[0]
    return next((d for d in (",", ";", "\t") if d in first), ",")


def read_csv(data: bytes, file: str) -> tuple[Filled | None, list[Problem]]:
    text, problems = decode(data, file)
    if text is None:
        return None, problems
    records: list[tuple[int, list[str]]] = []
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(text), strict=True)
    try:
        for record in reader:
            if any(field.strip() for field in record):
                records.append((len(records) + 1, record))
                if len(records) > MAX_ROWS:
                    return None, [*problems, too_many_rows(Place(file, row=len(records)))]
    except csv.Error as exc:
        problems.append(Problem(Place(file, row=len(records) + 1), f"is not valid CSV: {exc} (is the file truncated?)"))
    if not records:
        return None, problems or [Problem(Place(file), "the file has no header row")]
    header = records[0][1]

    def place_of(row: int):
        return lambda i: Place(file, row=row, column=column_letter(i), name=header[i] if i < len(header) else "")

    index, found = match_columns(header, place_of(1), Place(file, row=1), required=(*READ_COLUMNS, "doctrine_version"),
                                 optional=(*ADDED_COLUMNS, *CSV_STAMP))
    problems += found
    if found:
        return None, problems
    entries = []
    for row, values in records[1:]:
        if len(values) != len(header):
            why = "is the file truncated?" if len(values) < len(header) else "a stray delimiter or quote?"
            problems.append(Problem(Place(file, row=row), f"has {len(values)} fields, the header has {len(header)} ({why})"))
            continue
        entries.append(Entry(Place(file, row=row), cells_of([v.strip() for v in values], index, place_of(row))))
    stamp = {key: entries[0].cells[key] for key in CSV_STAMP if entries and key in entries[0].cells}
    if not entries and not problems:
        problems.append(Problem(Place(file, row=2), "the worksheet has no rows, so it says nothing about the doctrine version"))
    for entry in entries[1:]:
        cell = entry.cells["doctrine_version"]
        if cell.value != stamp["doctrine_version"].value:
            problems.append(Problem(cell.place, f"doctrine_version {cell.value!r} differs from row 2's "
                                                f"{stamp['doctrine_version'].value!r}; one worksheet is one doctrine version"))
    return Filled(file, "csv", stamp, tuple(entries)), problems


def split_md_row(line: str) -> tuple[list[str], bool]:
    """Cells of a pipe-table row (escapes kept), and whether the row ends with its closing ``|``."""
    text = line.strip()
    cells, buf, i, closed = [], [], 1 if text.startswith("|") else 0, False
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            buf.append(text[i : i + 2])
            i += 2
            continue
        i += 1
        if ch == "|":
            cells.append("".join(buf))
            buf, closed = [], i == len(text)
        else:
            buf.append(ch)
    if not closed:
        cells.append("".join(buf))
    return cells, closed


def md_unescape(cell: str) -> str:
    """Undo the exporter's escaping: ``\\|`` and ``\\\\``, and ``<br>`` for a line break."""
    out = re.sub(r"\\([\\|])", r"\1", cell.strip())
    return re.sub(r"<br\s*/?>", "\n", out, flags=re.IGNORECASE)


def _md_table(lines: list[str]) -> tuple[int, int] | None:
    """The line index of the table header and the index just past the table."""
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("|")), None)
    if start is None:
        return None
    end = start
    while end < len(lines) and lines[end].lstrip().startswith("|"):
        end += 1
    return start, end


def read_markdown(data: bytes, file: str) -> tuple[Filled | None, list[Problem]]:
    text, problems = decode(data, file)
    if text is None:
        return None, problems
    lines = text.split("\n")
    span = _md_table(lines)
    if span is None:
        return None, [Problem(Place(file), "no worksheet table (lines starting with |) found")]
    start, end = span
    if end - start > MAX_ROWS:
        return None, [*problems, too_many_rows(Place(file, row=start + MAX_ROWS + 1, row_word="line"), "table lines")]
    long = next((n for n in range(start, end) if len(lines[n]) > MAX_LINE_CHARS), None)
    if long is not None:
        return None, [*problems, Problem(Place(file, row=long + 1, row_word="line"),
                                         f"the line is longer than {MAX_LINE_CHARS:,} characters; a worksheet row is "
                                         "far shorter (is it the right file?)")]
    stamp: dict[str, Cell] = {}
    for i, line in enumerate(lines[:start]):
        if m := MD_STAMP_LINE.match(line):
            stamp[MD_STAMP[m.group(1).lower()]] = Cell(m.group(2), Place(file, row=i + 1, row_word="line"))
    if "doctrine_version" not in stamp:
        problems.append(Problem(Place(file, row=1, row_word="line"),
                                "no '- Doctrine version: X.Y.Z' line above the table: the worksheet's stamp is missing"))
    header, _ = split_md_row(lines[start])
    header = [md_unescape(h) for h in header]

    def place_of(line_no: int):
        return lambda i: Place(file, row=line_no, row_word="line", column=str(i + 1), name=header[i] if i < len(header) else "")

    index, found = match_columns(header, place_of(start + 1), Place(file, row=start + 1, row_word="line"),
                                 required=READ_COLUMNS, optional=ADDED_COLUMNS)
    problems += found
    if found:
        return None, problems
    body = start + 1
    if body < end and MD_SEPARATOR.match(lines[body].strip()):
        body += 1
    else:
        problems.append(Problem(Place(file, row=start + 2, row_word="line"), "the table header is not followed by a |---|---| separator line"))
    entries = []
    for n in range(body, end):
        cells, closed = split_md_row(lines[n])
        place = Place(file, row=n + 1, row_word="line")
        if not closed or len(cells) != len(header):
            why = "does not end with |" if not closed else f"has {len(cells)} cells, the header has {len(header)}"
            problems.append(Problem(place, f"the row {why} (is the file truncated, or a | in a cell not written as \\|?)"))
            continue
        entries.append(Entry(place, cells_of([md_unescape(c) for c in cells], index, place_of(n + 1))))
    return Filled(file, "md", stamp, tuple(entries)), problems
