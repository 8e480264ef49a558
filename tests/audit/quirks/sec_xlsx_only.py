"""A workbook server whose one read-only tool opens only ``.xlsx`` files, like excel-mcp-server.

``describe_workbook`` resolves its ``path`` against the folder it was started in, refuses any other suffix
before it looks where the path leads, and answers with the sheet names and cell A1 of a real workbook (a zip
of XML parts; anything else is refused as not a workbook). Its containment is a path comparison, unless:

- ``--escape``: no containment at all, ``..``, absolute paths and symlinks lead anywhere;
- ``--refuse-all``: a containment check that is always false, so every path is "outside the workspace";
- ``--suffix .dwg``: it opens only that suffix (a kind no auditor can make) instead of ``.xlsx``.
"""

import re
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hostile"))
import tiny

ROOT = Path.cwd().resolve()
SUFFIX = tiny.option("--suffix") or ".xlsx"
tiny.TOOLS = [{
    "name": "describe_workbook", "annotations": {"readOnlyHint": True},
    "description": f"List the sheets of a workbook ({SUFFIX}) and the value of cell A1 of each.",
    "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "description": "relative to the folder"}},
                    "required": ["path"]},
}]


def resolve(path: str) -> Path:
    if "\x00" in path or len(path) > 4096:
        raise PermissionError("path refused: NUL byte or too long")
    if not path.lower().endswith(SUFFIX):
        raise PermissionError(f"path {path!r} must name a {SUFFIX} workbook")
    full = (ROOT / path).resolve()
    if "--refuse-all" in sys.argv or not ("--escape" in sys.argv or full.is_relative_to(ROOT)):
        raise PermissionError(f"path {path!r} is outside the workspace")
    return full


def describe(path: str) -> str:
    with zipfile.ZipFile(resolve(path)) as book:
        workbook = book.read("xl/workbook.xml").decode()
        cells = book.read("xl/worksheets/sheet1.xml").decode()
    sheets = re.findall(r'<sheet name="([^"]*)"', workbook)
    return f"sheets: {', '.join(sheets)}; A1: {''.join(re.findall(r'<t>([^<]*)</t>', cells))}"


def call(name: object, arguments: dict) -> dict:
    try:
        if name != "describe_workbook":
            raise ValueError(f"unknown tool {name!r}")
        text, failed = describe(str(arguments.get("path", ""))), False
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        text, failed = f"error: {exc}", True
    return {"content": [{"type": "text", "text": text}], "isError": failed}


if __name__ == "__main__":
    tiny.serve_tools(call)
