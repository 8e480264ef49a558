"""The doctrine as it was: load the corpus at a git ref, and compare two corpora.

Used by ``diff`` (what a pull request changes) and by ``report`` (what changed
since the doctrine version a worksheet was filled against).
"""

from __future__ import annotations

import io
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .model import Corpus, Rule
from .parse import parse_content

COMPARED_FIELDS = ("title", "scope", "stack", "severity", "gate", "check", "probe", "seam", "spec", "summary", "qualifiers")


class HistoryError(Exception):
    """A git ref or version that cannot be read."""


def _git(root: Path, *args: str) -> bytes:
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=60)
    except OSError as exc:
        raise HistoryError(f"git is not available: {exc}") from exc
    if out.returncode != 0:
        raise HistoryError(out.stderr.decode(errors="replace").strip() or f"git {' '.join(args)} failed")
    return out.stdout


def load_corpus_at(root: Path, ref: str, *, content_dir: str = "content") -> Corpus:
    """Parse ``content/`` as it is at git ``ref`` (a commit, branch or tag)."""
    data = _git(root, "archive", "--format=tar", ref, "--", content_dir)
    with tempfile.TemporaryDirectory(prefix="hb-history-") as tmp:
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(tmp, filter="data")
        corpus = parse_content(Path(tmp), content_dir=content_dir)
    return corpus


def commit_of_version(root: Path, version: str, *, content_dir: str = "content") -> str | None:
    """The newest commit whose ``handbook.yml`` declares ``version``, or None."""
    try:
        out = _git(root, "log", "--format=%H", "-G", f"version: *[\"']?{version}[\"']?", "--", f"{content_dir}/handbook.yml")
    except HistoryError:
        return None
    commits = out.decode().split()
    return commits[0] if commits else None


@dataclass(frozen=True, slots=True)
class RuleChange:
    """How one rule differs between two corpora."""

    id: str
    fields: tuple[tuple[str, str, str], ...] = ()
    """(field, old value, new value) for each front-matter field that changed."""
    code_changed: bool = False
    """A WRONG or CORRECT block's code changed."""
    body_changed: bool = False
    """The prose changed."""

    def field(self, name: str) -> tuple[str, str] | None:
        return next(((old, new) for f, old, new in self.fields if f == name), None)


@dataclass(frozen=True, slots=True)
class Changes:
    """Rules added, changed and retired from one corpus to another."""

    old_version: str
    new_version: str
    added: tuple[Rule, ...] = ()
    changed: tuple[RuleChange, ...] = ()
    removed: tuple[Rule, ...] = ()
    retired: tuple[dict, ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.removed or self.retired)


def _text(value: object) -> str:
    return "" if value in (None, "", ()) else str(value)


def compare_rules(old: Rule, new: Rule) -> RuleChange | None:
    fields = tuple(
        (name, _text(getattr(old, name)), _text(getattr(new, name)))
        for name in COMPARED_FIELDS
        if getattr(old, name) != getattr(new, name)
    )
    code_changed = [(s.kind, s.code) for s in old.snippets] != [(s.kind, s.code) for s in new.snippets]
    body_changed = old.body != new.body
    if not (fields or code_changed or body_changed):
        return None
    return RuleChange(new.id, fields, code_changed, body_changed)


def diff_corpora(old: Corpus, new: Corpus) -> Changes:
    old_rules = {r.id: r for r in old.rules}
    new_rules = {r.id: r for r in new.rules}
    old_retired = {str(r.get("id")) for r in old.retired}
    return Changes(
        old_version=old.version,
        new_version=new.version,
        added=tuple(new_rules[i] for i in sorted(set(new_rules) - set(old_rules))),
        changed=tuple(c for i in sorted(set(old_rules) & set(new_rules)) if (c := compare_rules(old_rules[i], new_rules[i]))),
        removed=tuple(old_rules[i] for i in sorted(set(old_rules) - set(new_rules))),
        retired=tuple(r for r in new.retired if str(r.get("id")) not in old_retired),
    )
