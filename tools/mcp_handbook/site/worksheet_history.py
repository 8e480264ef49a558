"""What the worksheet page needs to know about earlier doctrine versions, to carry a review over.

A review is stored in the browser under the doctrine version it was made for.
When the page finds answers stored under an earlier version, it offers to carry
them over and says which of those rules changed since, so the reviewer looks at
them again. Which rules changed is read from git once per build: for each
earlier version, the last commit that declared it in ``handbook.yml`` and the
rule files that differ from it now (a few git calls, no second parse). Outside
git there is no history; the page then says it cannot tell.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .. import git
from ..model import Corpus

VERSION_LINE = re.compile(r"""^version:\s*["']?([^"'\s#]+)""", re.M)


def _git(root: Path, *args: str) -> str | None:
    return git.text(root, *args)


def version_refs(root: Path, *, content_dir: str = "content") -> dict[str, str]:
    """Each doctrine version in the history -> a ref to the last commit that declared it (newest first)."""
    log = _git(root, "log", "--format=%H", "-G", "^version:", "--", f"{content_dir}/handbook.yml")
    refs: dict[str, str] = {}
    newer = ""
    for commit in (log or "").split():
        found = VERSION_LINE.search(_git(root, "show", f"{commit}:{content_dir}/handbook.yml") or "")
        if found and newer:
            refs.setdefault(found.group(1), f"{newer}^")  # the commit before the one that moved past this version
        newer = commit
    return refs


def changed_since(root: Path, corpus: Corpus, ref: str, *, content_dir: str = "content") -> list[str] | None:
    """Ids of the current rules whose file differs from ``ref`` (in checklist order), or None when git cannot tell."""
    out = _git(root, "diff", "--name-only", "--no-renames", ref, "--", f"{content_dir}/rules")
    if out is None:
        return None
    paths = set(out.split("\n"))
    return [rule.id for rule in corpus.rules if rule.path in paths]


def earlier_versions(corpus: Corpus) -> dict[str, dict[str, Any]]:
    """For each earlier doctrine version: the current rules whose content changed since it."""
    found = {}
    for version, ref in version_refs(corpus.root).items():
        if version == corpus.version:
            continue
        changed = changed_since(corpus.root, corpus, ref)
        if changed is not None:
            found[version] = {"changed": changed}
    return found


def retired_rules(corpus: Corpus) -> list[dict[str, Any]]:
    """The retired ids with their title, release and replacements, as plain JSON for the page."""
    out = []
    for entry in corpus.retired:
        replaced = entry.get("replaced_by")
        replaced = [str(r) for r in replaced] if isinstance(replaced, list) else ([str(replaced)] if replaced else [])
        out.append({
            "id": str(entry.get("id", "")), "title": str(entry.get("title") or ""), "retired_in": str(entry.get("retired_in") or ""),
            "replaced_by": replaced, "reason": str(entry.get("reason") or ""),
        })
    return out
