"""A rule's change history from git: the commits that touched its file.

One ``git log`` call per build covers every rule, so the history costs the
same for three rules as for sixty. Outside a git checkout (a copied tree, a
source tarball) there is simply no history, never an error.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from .. import git

RECORD, FIELD = "\x1e", "\x1f"


@dataclass(frozen=True, slots=True)
class Change:
    """One commit that touched a rule file."""

    commit: str
    """Abbreviated hash."""
    date: str
    """Author date, ``YYYY-MM-DD``."""
    subject: str
    """The commit's first line."""


def rule_changes(root: Path, *, folder: str = "content/rules", timeout: float = 10.0) -> dict[str, tuple[Change, ...]]:
    """Commits by root-relative file path, newest first; empty when git cannot tell."""
    out = git.text(root, "log", f"--format={RECORD}%h{FIELD}%as{FIELD}%s", "--name-only", "--no-renames", "--", folder,
                   timeout=timeout)
    if out is None:
        return {}
    found: dict[str, list[Change]] = defaultdict(list)
    for record in out.split(RECORD)[1:]:
        head, _, names = record.partition("\n")
        parts = head.split(FIELD)
        if len(parts) != 3:
            continue
        change = Change(*parts)
        for name in filter(None, names.splitlines()):
            found[name].append(change)
    return {path: tuple(changes) for path, changes in found.items()}
