"""One entry audited in a process of its own, the worker ``fleet run`` starts inside the sandbox for each server
(``python -m mcp_handbook.fleet.worker --root DIR - -o FOLDER``, the entry on stdin). Writes one result, whatever
happened to the server; exits 2 only when it cannot read its entry."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .. import __version__, load_corpus
from ..audit import cli as audit_cli
from ..audit.plan import AuditOptions
from ..command import UsageError
from ..model import Corpus
from . import result
from .audit_one import audit_one
from .entry import Entry


def audit_entry(root: Path, entry_text: str, folder: Path, *, audit_args: Sequence[str], sandbox_said: str,
                allow_remote: bool, whole_process: bool) -> Path:
    corpus = load_corpus(root, proving=True)
    if not corpus.rules:
        raise UsageError(f"{root}: no rules here (is the handbook readable inside the sandbox?)")
    try:
        entry = Entry.from_json(json.loads(entry_text))
    except (ValueError, TypeError, AttributeError) as exc:
        raise UsageError(f"the entry on stdin is not one `fleet run` writes: {exc}") from None
    if whole_process:
        from ..procs import become_subreaper

        become_subreaper()  # a server's orphans are reaped here, and the audit kills them
    options, problem = entry_options(corpus, [*audit_args, *entry.audit_args])
    if options is None:
        data = result.not_run(entry, corpus, state="auditor failed", why=f"audit options {problem}",
                              tool_version=__version__, sandbox=sandbox_said)
    else:
        data = audit_one(corpus, entry, options=options, sandbox_said=sandbox_said, allow_remote=allow_remote,
                         environ=os.environ)
    return result.write(folder, data)


def entry_options(corpus: Corpus, words: Sequence[str]) -> tuple[AuditOptions | None, str]:
    """The audit's options parsed by the audit's own parser, so an entry's ``audit_args`` mean what they mean to
    ``mcp-handbook audit``; (None, why) when they are not audit options."""
    ap = argparse.ArgumentParser(prog="mcp-handbook audit", add_help=False)
    sub = ap.add_subparsers(dest="command_name")

    def add(name: str, fn: Callable[[argparse.Namespace], int], help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help_text)

    audit_cli.register(add)
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            parsed = ap.parse_args(["audit", "-o", "unused.json", *words])
        return audit_cli.audit_options(parsed, corpus), ""
    except SystemExit:
        said = err.getvalue().strip().splitlines()
        return None, f"{' '.join(words)!r}: {said[-1] if said else 'refused'}"
    except UsageError as exc:
        return None, str(exc)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mcp_handbook.fleet.worker")
    ap.add_argument("--root", required=True)
    ap.add_argument("entry", choices=["-"], help="-: the entry is read from stdin")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--audit-arg", action="append", default=[])
    ap.add_argument("--sandbox-said", default="", help="the sandbox this worker runs in, for the result")
    ap.add_argument("--allow-remote", action="store_true")
    args = ap.parse_args(argv)
    try:
        audit_entry(Path(args.root), sys.stdin.read(), Path(args.output), audit_args=args.audit_arg,
                    sandbox_said=args.sandbox_said, allow_remote=args.allow_remote, whole_process=argv is None)
    except UsageError as exc:
        print(f"mcp-handbook fleet: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
