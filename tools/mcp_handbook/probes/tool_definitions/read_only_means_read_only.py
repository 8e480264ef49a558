"""TOOL-017: a tool annotated ``readOnlyHint: true`` leaves the workspace as it found it.

``readOnlyHint: true`` says the tool "does not modify its environment" (2025-11-25 ``schema.ts``,
``ToolAnnotations``). Hosts use it to decide what to run without asking, and this handbook's auditor calls such tools
with arguments of its own choosing. A tool that claims it and writes (a cache file, a log, a lock, an "index" it
builds on first use) turns that trust into writes nobody approved. The probe puts one small file in the workspace,
then for each callable tool annotated ``readOnlyHint: true`` (at most :data:`MAX_CALLED`) takes a snapshot of the
workspace (every entry's path, type, size and modification time, at most :data:`MAX_ENTRIES`), calls the tool once
with ordinary arguments from its schema (a path parameter gets the planted file), waits for the answer and compares.

Fair to third-party servers: only what the server's workspace shows is seen (a write elsewhere, or a file created
and removed within the call, is not); a tool that refuses the call is still judged, since a refusal must not write
either; access times are not compared (reading may update them).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..calls import ToolCalls
from ..registry import probe
from ..schemas import annotations_of, declared, input_schema, schema_valid_arguments
from ..support import (
    PATH_PARAMS, Finding, Target, callable_tools, compact, failed, listed, not_applicable, passed, planted, tool_name, tools_of,
)

REASONS = {
    "read_only_tool_wrote": "a tool annotated readOnlyHint: true created, changed or removed a file in the workspace",
}
MAX_CALLED = 10
MAX_ENTRIES = 5000
PLANTED = "hb-readonly-sample.txt"

Snapshot = dict[str, tuple[str, int, int]]
"""Relative path -> (kind, size, modification time in ns)."""


def snapshot(root: Path) -> Snapshot:
    """Every entry under ``root`` (symlinks not followed), at most :data:`MAX_ENTRIES`."""
    seen: Snapshot = {}
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in [*dirs, *sorted(files)]:
            full = os.path.join(folder, name)
            try:
                info = os.lstat(full)
            except OSError:
                continue
            kind = "dir" if os.path.isdir(full) and not os.path.islink(full) else "file"
            seen[os.path.relpath(full, root)] = (kind, 0 if kind == "dir" else info.st_size, info.st_mtime_ns)
            if len(seen) >= MAX_ENTRIES:
                return seen
    return seen


def changes(before: Snapshot, after: Snapshot) -> list[str]:
    """What differs, as ``created x``, ``changed x`` and ``removed x`` (sorted, at most 5 of each)."""
    created = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = sorted(p for p in set(before) & set(after) if before[p] != after[p] and before[p][0] == "file")
    return ([f"created {p}" for p in created[:5]] + [f"changed {p}" for p in changed[:5]]
            + [f"removed {p}" for p in removed[:5]])


def _arguments(tool: dict[str, Any]) -> dict[str, Any] | None:
    props = declared(input_schema(tool))
    return schema_valid_arguments(tool, **{p: PLANTED for p in PATH_PARAMS if p in props})


@probe("read_only_means_read_only", "a tool annotated readOnlyHint: true writes nothing to the workspace",
       reasons=REASONS, calls_tools=True, shares_session=True)
def read_only_means_read_only(target: Target) -> Finding:
    """Snapshot the workspace around one ordinary call of each read-only tool: nothing may be created, changed or removed."""
    chosen = [t for t in callable_tools(target, tools_of(target)) if annotations_of(t).get("readOnlyHint") is True]
    if not chosen:
        return not_applicable("no tool annotated readOnlyHint: true may be called")
    with planted(target.workspace / PLANTED):
        (target.workspace / PLANTED).write_text("a line to read\nanother line\n", encoding="utf-8")
        return _judged(target, chosen)


def _judged(target: Target, chosen: list[dict[str, Any]]) -> Finding:
    """One ordinary call of each chosen tool between two snapshots of the workspace, the planted file in it."""
    calls = ToolCalls(target, wait=target.timeout * 2)
    problems, judged = [], []
    for tool in chosen[:MAX_CALLED]:
        args = _arguments(tool)
        if args is None or not calls.may_try(tool_name(tool)):
            continue
        calls.open()  # started before the snapshot: what a server writes when it starts is not a tool's doing
        before = snapshot(target.workspace)
        if calls.call(tool_name(tool), args) is None:
            continue
        judged.append(tool_name(tool))
        found = changes(before, snapshot(target.workspace))
        if found:
            problems.append(f"{tool_name(tool)}({compact(args, 80)}): {', '.join(found)}")
    if problems:
        return failed("read_only_tool_wrote", f"{len(problems)} tool(s) annotated readOnlyHint: true wrote to the "
                      "workspace", *listed(problems), *calls.notes)
    if not judged:
        return calls.not_checked("no read-only tool could be called with arguments valid for its schema")
    return passed(f"{len(judged)} read-only tool(s) left the workspace unchanged", "called: " + ", ".join(judged),
                  *calls.notes)
