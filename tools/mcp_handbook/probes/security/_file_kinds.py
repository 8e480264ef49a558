"""The kinds of file a path-taking tool or a resource server may open, how to tell which it takes, and how to
write a small, valid file of each kind that shows a chosen text.

A tool that opens only workbooks refuses ``inside.txt`` before it ever looks at where the path leads; a probe
that planted only text files would read that refusal as "refuses everything", and an escape aimed at
``secret.txt`` would be refused for its type, not for leaving the root. So the probes plant files of the kinds
the target names (in its description, a parameter's description or ``pattern``, or the server's
instructions), with real content, and keep plain text as the last resort. Every writer uses the standard
library only: the auditor needs no spreadsheet or imaging package to audit a server that reads them.
"""

from __future__ import annotations

import json
import re
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from ..support import properties


def _text(text: str) -> bytes:
    return (text + "\n").encode()


def _csv(text: str) -> bytes:
    return f"name,value\n{text},1\n".encode()


def _json(text: str) -> bytes:
    return (json.dumps({"text": text}) + "\n").encode()


_XLSX_PARTS = {
    "[Content_Types].xml": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/worksheets/sheet1.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>'),
    "_rels/.rels": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
        'officeDocument" Target="xl/workbook.xml"/></Relationships>'),
    "xl/_rels/workbook.xml.rels": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
        'worksheet" Target="worksheets/sheet1.xml"/></Relationships>'),
}


def _xlsx(text: str) -> bytes:
    """A one-sheet workbook: the sheet is named after ``text`` (cut to Excel's 31 characters) and cell A1 holds
    it, so a tool that lists sheets and one that reads cells both show it."""
    sheet = escape(re.sub(r"[\[\]:*?/\\]", "-", text)[:31], {'"': "&quot;"})
    workbook = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
                'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
                f'<sheets><sheet name="{sheet}" sheetId="1" r:id="rId1"/></sheets></workbook>')
    worksheet = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                 '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
                 f'<row r="1"><c r="A1" t="inlineStr"><is><t>{escape(text)}</t></is></c></row>'
                 '</sheetData></worksheet>')
    out = BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as book:
        for name, xml in {**_XLSX_PARTS, "xl/workbook.xml": workbook, "xl/worksheets/sheet1.xml": worksheet}.items():
            book.writestr(name, xml)
    return out.getvalue()


def _pdf(text: str) -> bytes:
    """A one-page PDF whose page shows ``text``, with a correct cross-reference table."""
    shown = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    stream = f"BT /F1 12 Tf 72 720 Td ({shown}) Tj ET".encode("latin-1", "replace")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _png(text: str) -> bytes:
    """A 1x1 white PNG carrying ``text`` in a ``tEXt`` comment chunk."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"tEXt", b"Comment\x00" + text.encode("latin-1", "replace"))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\xff\xff")) + chunk(b"IEND", b""))


@dataclass(frozen=True, slots=True)
class FileKind:
    """One kind of file: its name for people, the suffix planted files get, the words that say a tool takes it."""

    name: str
    suffix: str
    names: tuple[str, ...]
    """Regular expressions (case-insensitive) that name this kind outright: a suffix, ``Excel``, ``PDF``."""
    words: tuple[str, ...]
    """Looser words that often mean this kind but may not (``images`` counted in a sheet, ``JSON`` returned)."""
    content: Callable[[str], bytes]
    """A valid file of this kind that shows the given text."""

    def write(self, path: Path, text: str) -> None:
        path.write_bytes(self.content(text))

    def __str__(self) -> str:
        return f"{self.name} ({self.suffix})"


TEXT = FileKind("text", ".txt", (r"\.txt\b",), (r"\btext files?\b",), _text)
KINDS = (
    FileKind("Excel workbook", ".xlsx", (r"\.xls[xmt]\b", r"\bexcel\b"), (r"\bworkbooks?\b", r"\bspreadsheets?\b"), _xlsx),
    FileKind("CSV", ".csv", (r"\.[ct]sv\b", r"\bcsv\b"), (), _csv),
    FileKind("JSON", ".json", (r"\.json\b", r"\bjson (?:files?|documents?)\b"), (r"\bjson\b",), _json),
    FileKind("PDF", ".pdf", (r"\.pdf\b", r"\bpdfs?\b"), (), _pdf),
    FileKind("PNG image", ".png", (r"\.(?:png|jpe?g|gif|webp)\b", r"\bpng\b"),
             (r"\bimages?\b", r"\bpictures?\b", r"\bphotos?\b"), _png),
    FileKind("Markdown", ".md", (r"\.md\b", r"\bmarkdown\b"), (), _text),
    TEXT,
)
"""Every kind the probes can plant, most specific first; plain text is the last resort."""


def _words(schema: dict[str, Any]) -> str:
    return " ".join(str(schema.get(key) or "") for key in ("title", "description", "format"))


def _named_in(text: str, *, loosely: bool = False) -> list[FileKind]:
    """Kinds ``text`` names outright, or (``loosely``) in looser words."""
    return [kind for kind in KINDS
            if any(re.search(hint, text, re.IGNORECASE) for hint in (kind.words if loosely else kind.names))]


def _fits_pattern(schema: dict[str, Any]) -> list[FileKind]:
    """Kinds whose planted name (``inside.xlsx``) a ``pattern`` on the parameter accepts, when it has one."""
    pattern = schema.get("pattern")
    if not isinstance(pattern, str):
        return []
    try:
        return [kind for kind in KINDS if re.search(pattern, "inside" + kind.suffix)]
    except re.error:
        return []


def kinds_taken(tool: dict[str, Any], param: str, instructions: Any = "") -> list[FileKind]:
    """The kinds of file ``tool`` may take in ``param``, most likely first, plain text always last.

    Asked in order: the parameter's ``pattern``; kinds named outright by the parameter or the tool (its title and
    description), then by the server's instructions (a server of one file type often says so once, for all its
    tools); then the looser words, in the same order. A sheet tool that counts "images" still takes workbooks."""
    schema = properties(tool).get(param) or {}
    own = " ".join([_words(schema), *(str(v) for v in schema.get("enum") or ()),
                    *(str(tool.get(key) or "") for key in ("title", "description"))])
    server = instructions if isinstance(instructions, str) else ""
    sources: list[Iterable[FileKind]] = [
        _fits_pattern(schema), _named_in(own), _named_in(server),
        _named_in(own, loosely=True), _named_in(server, loosely=True), [TEXT],
    ]
    ordered: list[FileKind] = []
    for found in sources:
        ordered += [kind for kind in found if kind not in ordered]
    return ordered


def kinds_listed(uris: Iterable[str], mime_types: Iterable[str] = ()) -> list[FileKind]:
    """The kinds a resource server already serves, by the suffixes of the URIs it lists and the MIME types of its
    templates, most frequent first; plain text always last."""
    counts: dict[FileKind, int] = {}
    for uri in uris:
        for kind in KINDS:
            if uri.lower().endswith(kind.suffix):
                counts[kind] = counts.get(kind, 0) + 1
    ordered = sorted(counts, key=lambda kind: -counts[kind])
    for kind in _named_in(" ".join(mime_types)) + _named_in(" ".join(mime_types), loosely=True):
        if kind not in ordered:
            ordered.append(kind)
    return [*(k for k in ordered if k is not TEXT), TEXT]


def describe(kinds: Iterable[FileKind]) -> str:
    """``Excel workbook (.xlsx), text (.txt)``: what a summary says the probe tried."""
    return ", ".join(str(kind) for kind in kinds)
