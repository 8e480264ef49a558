"""``mcp-handbook diff BASE [HEAD]``: what a change does to the doctrine. This module prints."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from ..command import EXIT_OK, UsageError, handbook_root
from ..history import HistoryError, diff_corpora, load_corpus_at, proof_changes
from ..model import Corpus
from ..parse import parse_content
from .render import as_markdown, as_text, changelog_entry, insert_entry
from .versioning import Assessment, assess

WORKING_TREE = "the working tree"


def _corpus(root: Path, ref: str | None) -> Corpus:
    try:
        return parse_content(root) if ref is None else load_corpus_at(root, ref)
    except HistoryError as exc:
        raise UsageError(f"cannot read the doctrine at {ref!r}: {exc}") from exc


def assessment(root: Path, base: str, head: str | None) -> Assessment:
    """Compare the doctrine at git ``base`` with ``head`` (a ref, or None for the working tree)."""
    old, new = _corpus(root, base), _corpus(root, head)
    return assess(
        diff_corpora(old, new),
        old_rules={r.id: r for r in old.rules},
        new_rules={r.id: r for r in new.rules},
        unreadable=frozenset(new.unparsed_paths()),
        proofs=proof_changes(root, base, head),
    )


def _write_changelog(root: Path, entry: str) -> Path:
    path = root / "CHANGELOG.md"
    try:
        text = insert_entry(path.read_text(encoding="utf-8"), entry)
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot add the entry to {path.name}: {exc}") from exc
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)  # all or nothing
    return path


def cmd_diff(args: argparse.Namespace) -> int:
    root = handbook_root(args)
    a = assessment(root, args.base, args.head)
    head = f"`{args.head}`" if args.head and args.format == "markdown" else args.head or WORKING_TREE
    if not (args.changelog or args.write_changelog):
        print((as_markdown if args.format == "markdown" else as_text)(a, base=args.base, head=head), end="")
        return EXIT_OK
    if a.level is None:
        print(f"no rule changes since {args.base}: nothing to draft", file=sys.stderr)
        return EXIT_OK
    entry = changelog_entry(a)
    if args.write_changelog:
        path = _write_changelog(root, entry)
        print(f"{path.name}: added the {a.suggested} entry ({a.level}); set `version: \"{a.suggested}\"` in "
              "content/handbook.yml when releasing", file=sys.stderr)
    else:
        print(entry, end="")
    return EXIT_OK


def register(add: Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser]) -> None:
    p = add("diff", cmd_diff, "what changed in the doctrine between git BASE and HEAD (default: the working tree), and the version it calls for")
    p.add_argument("base", metavar="BASE", help="git ref to compare from, e.g. origin/main or v0.1.0")
    p.add_argument("head", metavar="HEAD", nargs="?", help="git ref to compare to (default: the working tree, uncommitted edits included)")
    p.add_argument("--format", choices=["text", "markdown"], default="text", help="text for the terminal, markdown for a pull-request description")
    p.add_argument("--changelog", action="store_true", help="print a CHANGELOG.md entry for the suggested next version instead")
    p.add_argument("--write-changelog", action="store_true", help="insert that entry at the top of CHANGELOG.md")
