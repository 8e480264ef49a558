"""Probes of path containment: a tool's path argument must stay inside the workspace."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from ..base import (
    Finding, Probe, Target, WireTimeout, call_tool, compact, failed, list_tools, not_applicable, passed,
    refused, result_text, string_params,
)

PATH_PARAMS = ("path", "file", "filename", "filepath", "file_path", "relative_path")
INSIDE_PATHS = ("inside.txt", "inside_dir")


def _filler(schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if "default" in schema:
        return schema["default"]
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    return {"string": "x", "integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}.get(kind, "x")


def _arguments(tool: dict[str, Any], param: str, value: str) -> dict[str, Any]:
    schema = tool.get("inputSchema") or {}
    props = schema.get("properties") or {}
    args = {name: _filler(props.get(name) or {}) for name in schema.get("required") or () if name != param}
    args[param] = value
    return args


def _lay_out(workspace: Path) -> dict[str, str]:
    """Create the files the attacks aim at; return the marker each holds."""
    marker = f"hb-outside-{secrets.token_hex(6)}"
    sibling = workspace.parent / f"{workspace.name}-evil"
    sibling.mkdir(exist_ok=True)
    (sibling / "secret.txt").write_text(marker + "\n")
    (workspace.parent / "outside.txt").write_text(marker + "\n")
    link = workspace / "link_out"
    if not link.exists():
        os.symlink(sibling, link)
    (workspace / "inside.txt").write_text("hb-inside-ok\n")
    (workspace / "inside_dir").mkdir(exist_ok=True)
    (workspace / "inside_dir" / "note.txt").write_text("hb-inside-ok\n")
    return {"marker": marker, "sibling": sibling.name, "outside": str(workspace.parent / "outside.txt")}


def path_containment(target: Target) -> Finding:
    """Call each path-taking tool with escape attempts; none may be served, an inside path must be."""
    layout = _lay_out(target.workspace)
    sib = layout["sibling"]
    # (path, must it be refused?) Percent-escapes are literal names inside the
    # workspace: serving "no such file" is fine, serving the outside file is not.
    attacks = [
        (f"../{sib}/secret.txt", True),
        (f"../{sib}", True),
        (layout["outside"], True),
        ("link_out/secret.txt", True),
        (f"..%2F{sib}%2Fsecret.txt", False),
        ("inside.txt\x00../outside.txt", True),
        ("../" * 12 + "etc/passwd", True),
        ("a/" * 2100 + "x", True),
    ]
    session = target.start()
    try:
        session.initialize(timeout=target.timeout)
        tools = [t for t in list_tools(session, timeout=target.timeout) if target.may_call(t)]
    except WireTimeout as exc:
        return failed(f"the server did not complete the handshake: {exc}")
    candidates = [(t, p) for t in tools for p in string_params(t, PATH_PARAMS)][:3]
    if not candidates:
        return not_applicable("no callable tool takes a path argument (path, file, filename, ...)")
    evidence: list[str] = []
    leaks: list[str] = []
    for tool, param in candidates:
        name = tool["name"]
        for attack, must_refuse in attacks:
            try:
                response = call_tool(session, name, _arguments(tool, param, attack), timeout=target.timeout)
            except WireTimeout as exc:
                leaks.append(f"{name}({param}={attack[:60]!r}): no answer ({exc})")
                continue
            text = result_text(response)
            shown = f"{name}({param}={attack[:60]!r}) -> {'refused' if refused(response) else 'SERVED'}: {compact(response, 160)}"
            evidence.append(shown)
            if layout["marker"] in text or (must_refuse and not refused(response)):
                leaks.append(shown)
        served_inside = []
        for benign in INSIDE_PATHS:  # a file for file tools, a folder for folder tools
            try:
                response = call_tool(session, name, _arguments(tool, param, benign), timeout=target.timeout)
            except WireTimeout as exc:
                return failed(f"{name} did not answer for a path inside the workspace: {exc}", *evidence)
            served_inside.append((benign, response))
        if all(refused(r) for _, r in served_inside):
            shown = [f"{name}({param}={b!r}) -> {compact(r, 160)}" for b, r in served_inside]
            return failed(
                f"{name} refuses even paths inside the workspace: containment that rejects everything is not containment",
                *shown, *evidence,
            )
    if leaks:
        return failed(f"{len(leaks)} escape attempt(s) were served or not refused", *leaks[:6])
    return passed(f"{len(attacks)} escape attempts refused by {len(candidates)} tool(s); an inside path is served", *evidence[:10])


PROBES = (
    Probe("path_containment", path_containment, "paths outside the workspace are refused", calls_tools=True),
)
