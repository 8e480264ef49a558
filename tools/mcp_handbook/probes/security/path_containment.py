"""SEC-001: a tool's path argument never reaches outside the workspace, and paths inside it are still served.

Containment checks fail in well-known ways: a string-prefix test accepts the sibling ``ws-evil`` of ``ws``,
no canonicalisation lets ``..``, absolute paths and symlinks straight through, and a NUL byte or an
absurdly long path can slip past a check that a later call interprets differently. The probe lays out a
sibling directory with a marker file, a file beside the workspace and a symlink inside it pointing out,
then sends each path-taking tool eight escape attempts: each must be refused and no answer may show the
marker. A path inside the workspace must still be served, so a resolver that refuses everything fails.

Files are planted in every kind the tool may take (:mod:`._file_kinds`: a tool that opens only workbooks
gets real workbooks), and the escapes aim at files of the kind the tool served inside, so a refusal is about
where the path leads, not about its type. A tool that serves no inside file at all is *not checked*, unless
it refuses the inside paths with the very words it refuses the escapes with: then it treats the inside as
outside (it says they lie outside, are denied, ...), and that is the refuse-everything failure.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..registry import probe
from ..support import (
    PATH_PARAMS, Finding, ProbeAbort, Target, WireSession, WireTimeout, call_tool, compact, failed, fill_arguments, listed,
    not_applicable, passed, refused, result_text, served_root, session_with_tools, string_params,
)
from ._common import BOUNDARY_WORDS, refusal_words
from ._file_kinds import FileKind, describe, kinds_taken


@dataclass(slots=True)
class _Layout:
    """What the attacks aim at, laid out around the served root, and how to take it away again."""

    marker: str
    root: Path
    sibling: Path
    """The sibling folder whose name extends the root's; it holds ``secret<suffix>`` of every kind."""
    outside: Path
    """Where ``outside<suffix>`` files lie, beside the root."""
    tag: str
    """Prefix of every name planted inside the root (empty in the probe's own workspace)."""
    link: Path
    made: list[Path]
    """What was created inside the root, removed afterwards (the root may be the user's own folder)."""

    def inside_file(self, kind: FileKind) -> str:
        return f"{self.tag}inside{kind.suffix}"

    def inside(self, kinds: list[FileKind]) -> list[str]:
        """A file of each kind, a folder, then the root itself (as ``.`` and absolute): a tool must be served one of
        them (a tool that takes a repository or a folder refuses a plain file)."""
        return [*(self.inside_file(k) for k in kinds), f"{self.tag}inside_dir", ".", str(self.root)]

    def attacks(self, kind: FileKind) -> list[tuple[str, bool]]:
        """(path as sent, must it be refused?), aimed at files of ``kind``."""
        to_secret = os.path.relpath(self.sibling / f"secret{kind.suffix}", self.root)
        outside = self.outside / f"outside{kind.suffix}"
        # Percent-escapes are literal names inside the root: serving "no such file" is fine, serving the marker is not.
        return [
            (to_secret, True),
            (os.path.relpath(self.sibling, self.root), True),
            (str(outside), True),
            (f"{self.link.name}/secret{kind.suffix}", True),
            (to_secret.replace("/", "%2F"), False),
            (f"{self.inside_file(kind)}\x00{os.path.relpath(outside, self.root)}", True),
            ("../" * 12 + "etc/passwd", True),
            ("a/" * 2100 + "x" + kind.suffix, True),
        ]

    def remove(self) -> None:
        for path in reversed(self.made):
            try:
                path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
            except OSError:
                pass


def _lay_out(root: Path, scratch: Path, kinds: list[FileKind]) -> _Layout:
    """Plant a marker file of each kind outside the root (in ``scratch``, a folder of the probe's own) and, inside
    it, a file of each kind, a folder and an escaping symlink. When the root is the probe's own workspace the names
    are plain; in a folder the auditor was pointed at, they are unique and removed afterwards."""
    own = root.parent == scratch
    marker = f"hb-outside-{secrets.token_hex(6)}"
    tag = "" if own else f"hb-audit-{secrets.token_hex(4)}-"
    sibling = scratch / (f"{root.name}-evil" if own else "hb-evil")
    sibling.mkdir(exist_ok=True)
    layout = _Layout(marker, root, sibling, scratch, tag, root / f"{tag}link_out", [])
    for kind in kinds:
        kind.write(sibling / f"secret{kind.suffix}", marker)
        kind.write(scratch / f"outside{kind.suffix}", marker)
    if not layout.link.is_symlink():
        os.symlink(sibling, layout.link)
        layout.made.append(layout.link)
    for kind in kinds:
        kind.write(root / layout.inside_file(kind), "hb-inside-ok")
        layout.made.append(root / layout.inside_file(kind))
    inside_dir = root / f"{tag}inside_dir"
    inside_dir.mkdir(exist_ok=True)
    layout.made.append(inside_dir)
    (inside_dir / "note.txt").write_text("hb-inside-ok\n")
    layout.made.append(inside_dir / "note.txt")
    return layout


@probe("path_containment", "paths outside the workspace are refused", calls_tools=True, shares_session=True, reasons={
    "served_outside_root": "an escape attempt was served (not refused) or an answer showed a file outside the workspace",
    "escape_unanswered": "an escape attempt was neither refused nor answered within the timeout",
    "refuses_inside_paths": "a tool refuses paths inside the workspace with the words it refuses escapes with: "
                            "containment that rejects everything",
})
def path_containment(target: Target) -> Finding:
    """Call each path-taking tool with escape attempts; none may be served, an inside path must be."""
    session, init, tools = session_with_tools(target)
    candidates = [(t, p) for t in tools if target.may_call(t) for p in string_params(t, PATH_PARAMS)][:3]
    if not candidates:
        return not_applicable("no callable tool takes a path argument (path, file, filename, ...)")
    root = served_root(target)
    scratch = target.workspace.parent if root == target.workspace else target.workspace
    if scratch.resolve().is_relative_to(root.resolve()):
        return not_applicable(f"not checked: the probe's scratch folder {scratch} lies inside the served root {root}, "
                              "so no file outside the root can be planted")
    taken = [kinds_taken(tool, param, init.get("instructions")) for tool, param in candidates]
    layout = _lay_out(root, scratch, list(dict.fromkeys(kind for kinds in taken for kind in kinds)))
    try:
        return _attack(target, session, [(t, p, k) for (t, p), k in zip(candidates, taken)], layout)
    finally:
        layout.remove()


@dataclass(slots=True)
class _Seen:
    """What the calls of every tool showed, gathered for the verdict."""

    evidence: list[str]
    served: list[str]
    unanswered: list[str]
    refuses_inside: list[str]
    """Rows of tools that refused the inside paths in the words of their escape refusals."""
    unchecked: list[str]
    """Tools that served no inside path, each with the kinds the probe tried."""


def _attack(target: Target, session: WireSession, candidates: list[tuple[dict[str, Any], str, list[FileKind]]],
            layout: _Layout) -> Finding:
    seen = _Seen([], [], [], [], [])
    for tool, param, kinds in candidates:
        _one_tool(target, session, tool, param, kinds, layout, seen)
    if seen.served:
        return failed("served_outside_root", f"{len(seen.served)} escape attempt(s) were served or not refused",
                      *seen.served[:6], *seen.unanswered[:3])
    if seen.refuses_inside:
        return failed("refuses_inside_paths", "a tool refuses paths inside the workspace in the words it refuses "
                      "escapes with: containment that rejects everything is not containment",
                      *seen.refuses_inside[:8], *seen.evidence[:6])
    if seen.unanswered:
        return failed("escape_unanswered", f"{len(seen.unanswered)} escape attempt(s) were not answered: neither "
                      "refused nor served", *seen.unanswered[:6])
    if len(seen.unchecked) == len(candidates):
        return not_applicable(f"not checked: {'; '.join(seen.unchecked)}", *listed(seen.evidence))
    attacks = len(layout.attacks(candidates[0][2][0]))
    checked = len(candidates) - len(seen.unchecked)
    rest = f"; not checked: {'; '.join(seen.unchecked)}" if seen.unchecked else ""
    return passed(f"{attacks} escape attempts refused by {checked} tool(s) that serve a path inside the workspace"
                  f"{rest}", *listed(seen.evidence))


def _one_tool(target: Target, session: WireSession, tool: dict[str, Any], param: str, kinds: list[FileKind],
              layout: _Layout, seen: _Seen) -> None:
    """Find an inside path the tool serves (trying each kind it may take), then send the escapes aimed at files of
    that kind; record what was seen."""
    name = tool["name"]

    def call(path: str) -> dict[str, Any]:
        return call_tool(session, name, fill_arguments(tool, **{param: path}), timeout=target.timeout)

    inside: list[tuple[str, dict[str, Any]]] = []
    served_kind: FileKind | None = None
    for path in layout.inside(kinds):
        try:
            response = call(path)
        except WireTimeout as exc:  # silence on an ordinary path is not what containment judges
            raise _abort(f"{name} did not answer for a path inside the workspace: {exc}", seen) from None
        inside.append((path, response))
        if not refused(response):
            served_kind = next((k for k in kinds if path == layout.inside_file(k)), kinds[0])
            seen.evidence.append(f"{name}({param}={path!r}) -> served: {compact(response, 160)}")
            break
    escapes: list[tuple[str, dict[str, Any]]] = []
    for attack, must_refuse in layout.attacks(served_kind or kinds[0]):
        try:
            response = call(attack)
        except WireTimeout as exc:
            seen.unanswered.append(f"{name}({param}={attack[:60]!r}): no answer ({exc})")
            continue
        shown = f"{name}({param}={attack[:60]!r}) -> {'refused' if refused(response) else 'SERVED'}: {compact(response, 160)}"
        seen.evidence.append(shown)
        if layout.marker in result_text(response) or (must_refuse and not refused(response)):
            seen.served.append(shown)
        if must_refuse and refused(response):
            escapes.append((attack, response))
    if served_kind is not None:
        return
    escape_words = {refusal_words(r, a) for a, r in escapes}
    alike = [(p, r) for p, r in inside if refusal_words(r, p) in escape_words and BOUNDARY_WORDS.search(refusal_words(r, p))]
    every_word = escape_words | {refusal_words(r, p) for p, r in inside}
    shown_inside = [f"{name}({param}={p!r}) -> refused: {compact(r, 160)}" for p, r in inside]
    # A refusal for the type ("must name a .dwg file") is not one for the place; and one answer to every path,
    # even "denied", says nothing about the path.
    if alike and len(every_word) > 1:
        seen.refuses_inside += [f"{name} refuses {p!r} (inside) as it refuses escapes: {refusal_words(r, p)[:120]!r}"
                                for p, r in alike] + shown_inside
    else:
        seen.unchecked.append(f"{name} served no file inside the root (tried {describe(kinds)}, a folder and the "
                              "root; it may take only other kinds of file, or other arguments)")
        seen.evidence += shown_inside


def _abort(summary: str, seen: _Seen) -> ProbeAbort:
    return ProbeAbort(failed("no_answer", summary, *seen.evidence))
