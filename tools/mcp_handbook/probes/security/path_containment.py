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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..registry import probe
from ..support import (
    PATH_PARAMS, Finding, Target, WireSession, WireTimeout, call_tool, compact, failed, fill_arguments, not_applicable, passed,
    refused, result_text, served_root, session_with_tools, string_params,
)

@dataclass(slots=True)
class _Layout:
    """What the attacks aim at, laid out around the served root, and how to take it away again."""

    marker: str
    inside: tuple[str, ...]
    """A file and a folder inside the root, relative to it, then the root itself (as ``.`` and absolute): a tool
    must still be served one of them (a tool that takes a repository or a folder refuses a plain file)."""
    attacks: list[tuple[str, bool]]
    """(path as sent, must it be refused?)"""
    made: list[Path]
    """What was created inside the root, removed afterwards (the root may be the user's own folder)."""

    def remove(self) -> None:
        for path in reversed(self.made):
            try:
                path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
            except OSError:
                pass


def _lay_out(root: Path, scratch: Path) -> _Layout:
    """Plant a marker outside the root (in ``scratch``, a folder of the probe's own) and a file, a folder and an
    escaping symlink inside it. When the root is the probe's own workspace the names are plain; in a folder the
    auditor was pointed at, they are unique and removed afterwards."""
    own = root.parent == scratch
    marker = f"hb-outside-{secrets.token_hex(6)}"
    tag = "" if own else f"hb-audit-{secrets.token_hex(4)}-"
    sibling = scratch / (f"{root.name}-evil" if own else "hb-evil")
    sibling.mkdir(exist_ok=True)
    (sibling / "secret.txt").write_text(marker + "\n")
    outside = scratch / "outside.txt"
    outside.write_text(marker + "\n")
    inside_file, inside_dir, link = root / f"{tag}inside.txt", root / f"{tag}inside_dir", root / f"{tag}link_out"
    made: list[Path] = []
    if not link.is_symlink():
        os.symlink(sibling, link)
        made.append(link)
    inside_file.write_text("hb-inside-ok\n")
    made.append(inside_file)
    inside_dir.mkdir(exist_ok=True)
    made.append(inside_dir)
    (inside_dir / "note.txt").write_text("hb-inside-ok\n")
    made.append(inside_dir / "note.txt")
    to_secret = os.path.relpath(sibling / "secret.txt", root)
    # Percent-escapes are literal names inside the root: serving "no such file" is fine, serving the marker is not.
    attacks = [
        (to_secret, True),
        (os.path.relpath(sibling, root), True),
        (str(outside), True),
        (f"{link.name}/secret.txt", True),
        (to_secret.replace("/", "%2F"), False),
        (f"{inside_file.name}\x00{os.path.relpath(outside, root)}", True),
        ("../" * 12 + "etc/passwd", True),
        ("a/" * 2100 + "x", True),
    ]
    return _Layout(marker, (inside_file.name, inside_dir.name, ".", str(root)), attacks, made)


@probe("path_containment", "paths outside the workspace are refused", calls_tools=True, reasons={
    "served_outside_root": "an escape attempt was served (not refused) or an answer showed a file outside the workspace",
    "escape_unanswered": "an escape attempt was neither refused nor answered within the timeout",
    "refuses_inside_paths": "a tool refuses even paths inside the workspace: containment that rejects everything",
})
def path_containment(target: Target) -> Finding:
    """Call each path-taking tool with escape attempts; none may be served, an inside path must be."""
    session, _, tools = session_with_tools(target)
    candidates = [(t, p) for t in tools if target.may_call(t) for p in string_params(t, PATH_PARAMS)][:3]
    if not candidates:
        return not_applicable("no callable tool takes a path argument (path, file, filename, ...)")
    root = served_root(target)
    scratch = target.workspace.parent if root == target.workspace else target.workspace
    if scratch.resolve().is_relative_to(root.resolve()):
        return not_applicable(f"not checked: the probe's scratch folder {scratch} lies inside the served root {root}, "
                              "so no file outside the root can be planted")
    layout = _lay_out(root, scratch)
    try:
        return _attack(target, session, candidates, layout)
    finally:
        layout.remove()


def _attack(target: Target, session: WireSession, candidates: list[tuple[dict[str, Any], str]], layout: _Layout) -> Finding:
    attacks = layout.attacks
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
            if layout.marker in result_text(response) or (must_refuse and not refused(response)):
                served.append(shown)
        if served:  # an escape outweighs whatever the inside paths would show: only the other tools' attacks matter now
            continue
        inside = []
        for benign in layout.inside:
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
