"""Which doctrine a worksheet was filled against, and what changed since.

The commit in the stamp is the most precise ref; the doctrine version is the
fallback (a worksheet from a fork, or exported outside git). Stamp values come
from a file anyone may have edited, so only a hex commit and an X.Y.Z version
are ever handed to git.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .. import git
from ..export.worksheet import DIRTY, git_commit
from ..fields import VERSION_PATTERN
from ..history import Changes, HistoryError, commit_of_version, diff_corpora, load_corpus_at
from ..model import Corpus

COMMIT_PATTERN = re.compile(r"^[0-9a-fA-F]{7,40}$")


@dataclass(frozen=True, slots=True)
class Baseline:
    """The doctrine a worksheet was made from."""

    corpus: Corpus
    ref: str
    """The git commit it was loaded from, or ``""`` when it is the current content."""
    changes: Changes | None = None
    """From the baseline to the current content, when they differ."""


def _load(root: Path, ref: str) -> Corpus | None:
    try:
        return load_corpus_at(root, ref)
    except HistoryError:
        return None


def _content_unchanged_since(root: Path, commit: str, *, content_dir: str = "content") -> bool:
    """True when ``content/`` here is exactly ``content/`` at ``commit``: no second parse is needed."""
    extra = git.text(root, "ls-files", "--others", "--exclude-standard", "--", content_dir, timeout=30)
    return git.succeeds(root, "diff", "--quiet", commit, "--", content_dir) and extra is not None and not extra.strip()


def _candidates(root: Path, version: str, commit: str) -> list[tuple[str, bool]]:
    """Refs to try, each with whether it must hold the stamp's version (found by version, or a dirty commit)."""
    base = commit.removesuffix(DIRTY)
    refs = [(base, base != commit)] if COMMIT_PATTERN.match(base) else []
    if VERSION_PATTERN.match(version):
        found = commit_of_version(root, version)
        if found:
            # `git log -G` also matches the commit that bumped the version away; its parent holds it
            refs += [(found, True), (f"{found}^", True)]
    return refs


def find_baseline(root: Path, current: Corpus, *, version: str, commit: str) -> Baseline | str:
    """The corpus the worksheet was exported from, or why it cannot be found."""
    head = git_commit(root)
    if version == current.version and (commit == head or not COMMIT_PATTERN.match(commit)):
        return Baseline(current, "")  # the same doctrine, or content that no commit describes: judge by what is here
    if version == current.version and _content_unchanged_since(root, commit):
        return Baseline(current, "")  # HEAD moved, the doctrine did not
    for ref, from_version in _candidates(root, version, commit):
        old = _load(root, ref)
        if old is None or (from_version and old.version != version):
            continue
        if old.version != version:
            return f"the stamp is inconsistent: commit {commit} holds doctrine {old.version}, not {version}"
        return Baseline(old, ref, diff_corpora(old, current))
    if version == current.version:
        return Baseline(current, "")  # a commit this clone has never seen, but the same doctrine version
    return (
        f"doctrine version {version!r} (commit {commit or 'unknown'}) is unknown here: "
        f"not the current {current.version} and not in this repository's history"
    )
