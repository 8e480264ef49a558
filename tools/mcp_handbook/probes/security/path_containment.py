"""SEC-001: a tool's path argument never reaches outside the workspace, and paths inside it are still served.

Containment checks fail in well-known ways: a string-prefix test accepts the sibling ``ws-evil`` of ``ws``,
no canonicalisation lets ``..``, absolute paths and symlinks straight through, and a NUL byte or an
absurdly long path can slip past a check that a later call interprets differently. The probe lays out a
sibling directory with a marker file, a file beside the workspace and a symlink inside it pointing out,
then sends each path-taking tool eight escape attempts: each must be refused and no answer may show the
marker. A path inside the workspace must still be served, so a resolver that refuses everything fails.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from ..registry import probe
from ..support import (
    PATH_PARAMS, Finding, Target, WireTimeout, call_tool, compact, failed, fill_arguments, not_applicable, passed,
    refused, result_text, session_with_tools, string_params,
)

_INSIDE_PATHS = ("inside.txt", "inside_dir")
"""Paths inside the workspace the probe creates: a file for file tools, a folder for folder tools."""


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


@probe("path_containment", "paths outside the workspace are refused", calls_tools=True, reasons={
    "served_outside_root": "an escape attempt was served (not refused) or an answer showed a file outside the workspace",
    "escape_unanswered": "an escape attempt was neither refused nor answered within the timeout",
    "refuses_inside_paths": "a tool refuses even paths inside the workspace: containment that rejects everything",
})
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
    session, _, tools = session_with_tools(target)
    candidates = [(t, p) for t in tools if target.may_call(t) for p in string_params(t, PATH_PARAMS)][:3]
    if not candidates:
        return not_applicable("no callable tool takes a path argument (path, file, filename, ...)")
    evidence: list[str] = []
    served: list[str] = []
    unanswered: list[str] = []
    for tool, param in candidates:
        name = tool["name"]
        for attack, must_refuse in attacks:
            try:
                response = call_tool(session, name, fill_arguments(tool, **{param: attack}), timeout=target.timeout)
            except WireTimeout as exc:
                unanswered.append(f"{name}({param}={attack[:60]!r}): no answer ({exc})")
                continue
            shown = (f"{name}({param}={attack[:60]!r}) -> {'refused' if refused(response) else 'SERVED'}: "
                     f"{compact(response, 160)}")
            evidence.append(shown)
            if layout["marker"] in result_text(response) or (must_refuse and not refused(response)):
                served.append(shown)
        if served:  # an escape outweighs whatever the inside paths would show: only the other tools' attacks matter now
            continue
        inside = []
        for benign in _INSIDE_PATHS:
            try:
                response = call_tool(session, name, fill_arguments(tool, **{param: benign}), timeout=target.timeout)
            except WireTimeout as exc:  # silence on an ordinary path is not what containment judges
                return failed("no_answer", f"{name} did not answer for a path inside the workspace: {exc}", *evidence)
            inside.append((benign, response))
        if all(refused(r) for _, r in inside):
            shown_inside = [f"{name}({param}={b!r}) -> {compact(r, 160)}" for b, r in inside]
            return failed("refuses_inside_paths", f"{name} refuses even paths inside the workspace: containment that "
                          "rejects everything is not containment", *shown_inside, *unanswered[:3], *evidence)
    if served:
        return failed("served_outside_root", f"{len(served)} escape attempt(s) were served or not refused",
                      *served[:6], *unanswered[:3])
    if unanswered:
        return failed("escape_unanswered", f"{len(unanswered)} escape attempt(s) were not answered: neither refused "
                      "nor served", *unanswered[:6])
    return passed(f"{len(attacks)} escape attempts refused by {len(candidates)} tool(s); an inside path is served",
                  *evidence[:10])
