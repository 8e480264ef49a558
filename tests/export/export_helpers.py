"""Helpers for the export and report tests: a small handbook written to a temp dir, git, the CLI,
and fillers that fill each worksheet format the way a reviewer's tool would.

The mini handbook holds manual rules only (no probes, no server), so these
tests stay fast and do not depend on the reference server.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from mcp_handbook import load_corpus
from mcp_handbook.cli import main

GATES = """gates:
  - {key: transport, title: Transport and framing, summary: Bytes on the pipe.}
  - {key: security, title: Security boundaries, summary: What the server may touch.}
  - {key: testing, title: Testing}
"""

DEFAULT_RULES = {
    "TRN-001": {"title": "Write only JSON-RPC to stdout", "severity": "high", "gate": "transport"},
    "TRN-002": {"title": "Cap frame sizes", "severity": "medium", "gate": "transport"},
    "SEC-001": {"title": "Contain paths in the workspace", "severity": "high", "gate": "security"},
    "SEC-002": {"title": "Build a minimal child environment", "severity": "low", "gate": "security", "scope": "stack", "stack": "Python"},
    "TST-001": {"title": "Test over a real pipe", "severity": "medium", "gate": "testing", "scope": "opinionated"},
}


def rule_text(rule_id: str, fields: dict[str, str]) -> str:
    scope = fields.get("scope", "universal")
    stack = f"stack: {fields['stack']}\n" if scope == "stack" else ""
    basis = fields.get("basis", "security" if scope == "universal" else "practice")
    threats = "threats: [CWE-20]\nattack: A hostile caller sends input the server never expected and takes it over.\n" if basis == "security" else ""
    keyword = "MUST" if basis == "spec-must" else "SHOULD"
    spec = (f'spec: 2025-11-25 basic/transports#stdio\nquote: [{{text: "The server {keyword} keep this rule."}}]\n'
            if basis.startswith("spec-") else "")
    return f"""---
id: {rule_id}
title: {fields['title']}
scope: {scope}
{stack}basis: {basis}
{threats}severity: {fields['severity']}
gate: {fields['gate']}
check: manual
{spec}since: "0.1.0"
summary: {fields.get('summary', 'The ' + fields['title'].lower() + ' rule, in one sentence.')}
---

The claim of {rule_id}.

## Why it matters

Because {rule_id} matters.

## What to do

```python wrong title="the tempting mistake"
def bad_{rule_id.replace('-', '_').lower()}():
    return "WRONG-{rule_id}"
```

```python correct title="the fix"
def good_{rule_id.replace('-', '_').lower()}():
    return "CORRECT-{rule_id}"
```

## How it is verified

Manual: a reviewer reads the code.

## When to deviate

When {rule_id} does not fit the server.

## References

- Nothing external.
"""


def write_handbook(root: Path, *, version: str = "0.1.0", rules: dict[str, dict[str, str]] | None = None, retired: str = "[]") -> Path:
    """Write (or rewrite) a handbook at ``root``: mkdocs.yml, handbook.yml and one file per rule."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "mkdocs.yml").write_text("site_name: test\ndocs_dir: content\n")
    content = root / "content"
    if (content / "rules").exists():
        shutil.rmtree(content / "rules")
    for rule_id, fields in (DEFAULT_RULES if rules is None else rules).items():
        path = content / "rules" / fields["gate"] / f"{rule_id.lower()}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rule_text(rule_id, fields))
    (content / "handbook.yml").write_text(f'version: "{version}"\n{GATES}retired: {retired}\n')
    corpus = load_corpus(root)
    assert not corpus.diagnostics, "\n".join(map(str, corpus.diagnostics))
    return root


def git(root: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false", *args],
        cwd=root, capture_output=True, text=True, timeout=30, check=True,
    )
    return out.stdout.strip()


def commit_all(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def run(*args: str, root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The console command in-process: exit code, stdout, stderr."""
    code = main(["--root", str(root), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def run_process(*args: str, root: Path) -> subprocess.CompletedProcess[str]:
    """The console command in a fresh interpreter, for exit codes and the absence of tracebacks."""
    return subprocess.run([sys.executable, "-m", "mcp_handbook.cli", "--root", str(root), *args], capture_output=True, text=True, timeout=60)


# --- filling a worksheet the way a reviewer's tool would -------------------------------------

Filling = dict[str, tuple[str, str]]
"""rule id -> (status, evidence)"""


def _fill_csv(path: Path, filling: Filling) -> None:
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        row["status"], row["evidence"] = filling.get(row["id"], (row["status"], row["evidence"]))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\r\n")  # as a spreadsheet saves it
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")


def _fill_md(path: Path, filling: Filling) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    header = next(i for i, line in enumerate(lines) if line.startswith("| id"))
    names = [c.strip() for c in lines[header].strip("|").split("|")]
    for i in range(header + 2, len(lines)):
        if not lines[i].startswith("|"):
            continue
        cells = [c.strip() for c in lines[i].strip().strip("|").split(" | ")]
        row = dict(zip(names, cells))
        if row["id"] in filling:
            status, evidence = filling[row["id"]]
            row["status"], row["evidence"] = status, evidence.replace("|", "\\|").replace("\n", "<br>")
            lines[i] = "| " + " | ".join(row[n] for n in names) + " |"
    path.write_text("\n".join(lines), encoding="utf-8")


def _fill_json(path: Path, filling: Filling) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    for item in document["items"]:
        item["status"], item["evidence"] = filling.get(item["id"], (item["status"], item["evidence"]))
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")


def _fill_xlsx(path: Path, filling: Filling) -> None:
    from openpyxl import load_workbook

    wb = load_workbook(path)
    ws = wb["Worksheet"]
    header = [c.value for c in ws[1]]
    for row in ws.iter_rows(min_row=2):
        rule_id = row[header.index("id")].value
        if rule_id in filling:
            row[header.index("status")].value, row[header.index("evidence")].value = filling[rule_id]
    wb.save(path)


FILLERS: dict[str, Callable[[Path, Filling], None]] = {"csv": _fill_csv, "md": _fill_md, "json": _fill_json, "xlsx": _fill_xlsx}
FORMATS = tuple(FILLERS)


def fill(path: Path, filling: Filling) -> None:
    FILLERS[path.suffix.lstrip(".")](path, filling)
