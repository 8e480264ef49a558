"""The ``mcp-handbook`` command: its parser, and the small commands themselves.

Only the command modules print: this one and the commands it hands over to (``audit/cli.py``, ``export/cli.py``,
``report/cli.py``, ``contrib/commands.py``, ``evidence_cmd.py``, ``publish.py``); what they call returns values."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from . import load_corpus
from . import snippets as snippet_files
from .command import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, UsageError, doctrine_root, handbook_root
from .installed import is_packaged
from .model import Corpus
from .site_build import build_site


def version_text(root: str | None) -> str:
    """``mcp-handbook X (doctrine Y: where)``: the tool's version and the doctrine's it would use here."""
    import yaml

    from . import __version__

    try:
        where = doctrine_root(argparse.Namespace(root=root))
    except UsageError:
        return f"mcp-handbook {__version__} (no doctrine: not in a handbook checkout, and none installed with the tool)"
    try:
        data = yaml.safe_load((where / "content" / "handbook.yml").read_text(encoding="utf-8")) or {}
        doctrine = str(data.get("version") or "unknown")
    except (OSError, yaml.YAMLError, AttributeError):
        doctrine = "unreadable"
    source = "installed with the tool" if is_packaged(where) else str(where)
    return f"mcp-handbook {__version__} (doctrine {doctrine}: {source})"


class VersionAction(argparse.Action):
    """``--version``: printed when met, like argparse's own, but the doctrine's version is read only then."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object, option: str | None = None) -> None:
        print(version_text(getattr(namespace, "root", None)))
        parser.exit()


def _corpus(args: argparse.Namespace) -> Corpus:
    return load_corpus(handbook_root(args), proving=True)


def cmd_check(args: argparse.Namespace) -> int:
    from .history import HistoryError, unretired_removals

    corpus = _corpus(args)
    try:
        removals = unretired_removals(corpus, base=args.base)
    except HistoryError as exc:
        raise UsageError(f"cannot read the doctrine at {args.base!r}: {exc}") from exc
    problems = [str(d) for d in (*corpus.diagnostics, *removals, *snippet_files.check(corpus).diagnostics())]
    for line in problems:
        print(line)
    if problems:
        print(f"{len(problems)} problem(s) in {len(corpus.rules)} rule(s)", file=sys.stderr)
        return EXIT_PROBLEMS
    print(f"ok: {len(corpus.rules)} rules, {len(corpus.snippets)} snippets, doctrine {corpus.version}", file=sys.stderr)
    return EXIT_OK


def cmd_snippets(args: argparse.Namespace) -> int:
    corpus = _corpus(args)
    if args.check:
        state = snippet_files.check(corpus)
        for line in state.lines():
            print(line)
        return EXIT_OK if state.fresh else EXIT_PROBLEMS
    changed = snippet_files.write(corpus)
    for path in (*changed.missing, *changed.changed):
        print(f"{path}: written")
    for path in changed.extra:
        print(f"{path}: removed")
    return EXIT_OK


def cmd_build(args: argparse.Namespace) -> int:
    root = handbook_root(args)
    site_dir = Path(args.site_dir).resolve() if args.site_dir else root / "site"
    corpus = build_site(root, site_dir)
    print(f"built {site_dir} ({len(corpus.rules)} rules, doctrine {corpus.version})")
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    from .site.serve import serve_site

    serve_site(handbook_root(args), args.port)  # mkdocs' livereload server; it says where it serves once it has built
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    import pytest

    root = handbook_root(args)
    extra = [a for a in args.pytest_args if a != "--"] if args.pytest_args else []
    keyword = ["-k", args.rule] if args.rule else []
    return int(pytest.main([str(root / "content"), "--rootdir", str(root), *keyword, *extra]))


COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "mcp_handbook.proving.evidence_cmd": ("evidence",),
    "mcp_handbook.contrib.commands": ("diff",),
    "mcp_handbook.contrib.new_rule": ("new-rule",),
    "mcp_handbook.export.cli": ("export",),
    "mcp_handbook.report.cli": ("report",),
    "mcp_handbook.audit.cli": ("audit",),
    "mcp_handbook.publish": ("publish",),
    "mcp_handbook.mcp_server.cli": ("mcp",),
    "mcp_handbook.fleet.cli": ("fleet",),
}
"""Modules that add commands, with the commands each adds: each has ``register(add)``, where
``add(name, fn, help)`` returns the new subcommand's ArgumentParser. Add one line here per module.
Only the module a command needs is imported (``build`` need not load the probes: ~0.25 s);
a test checks that each module registers exactly the commands listed here."""
COMMAND_HELP: dict[str, str] = {
    "evidence": "record each WRONG/CORRECT block's proof for the site (or --check it is fresh)",
    "diff": "what changed in the doctrine between two git refs, and the version it calls for",
    "new-rule": "write a new rule file with the next free id (and, --automated, its probe module)",
    "export": "export the audit worksheet (md, csv, json, xlsx), rules.json, or the Agent Skill bundle",
    "report": "findings from a filled worksheet; exit 1 if a HIGH item of the profile is Fail",
    "audit": "run every automated rule's probe against any stdio server and write the worksheet",
    "publish": "deploy this doctrine version's site to the gh-pages branch (mike), latest alias on the newest",
    "fleet": "audit many servers from MCP Registry server.json entries: plan shards, run one, merge a scorecard",
    "mcp": "serve the handbook over MCP (stdio, or Streamable HTTP with --http): rules, worksheet, prompts, tools",
}
"""One line per lazily added command, so the usage lists every command without importing its module."""


def requested_command(argv: list[str]) -> str | None:
    """The subcommand word in ``argv`` (after any ``--root DIR``), or None."""
    words = iter(argv)
    for word in words:
        if word == "--root":
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The CLI's parser; given ``command``, only the module that adds it is imported (all when unknown)."""
    ap = argparse.ArgumentParser(prog="mcp-handbook", description="Check, prove, publish and export the MCP Server Authoring Handbook.")
    ap.add_argument("--root", help="the handbook folder (default: found from the current directory; audit, export and "
                    "report then fall back to the doctrine installed with the tool)")
    ap.add_argument("--version", action=VersionAction, help="print the tool's version and the doctrine's, and exit")
    sub = ap.add_subparsers(dest="command", required=True)

    def add(name: str, fn: Callable[[argparse.Namespace], int], help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(func=fn)
        return p

    p = add("check", cmd_check, "lint the content: print every problem as path:line: CODE message; exit 1 on any")
    p.add_argument("--base", metavar="REF", help="also require every rule id present at git REF (default HEAD) to exist or be retired")
    p = add("snippets", cmd_snippets, "write every WRONG/CORRECT block to snippets/ (or --check that it is fresh)")
    p.add_argument("--check", action="store_true", help="exit 1 if snippets/ is stale instead of writing")
    p = add("build", cmd_build, "build the site (strict, offline) with the downloads")
    p.add_argument("--site-dir", help="output folder (default: site/)")
    p = add("serve", cmd_serve, "build the site, serve it on 127.0.0.1, rebuild and reload the page on every edit")
    p.add_argument("--port", type=int, default=8000, help="0: any free port")
    p = add("verify", cmd_verify, "prove every snippet (runs pytest on content/)")
    p.add_argument("-k", "--rule", metavar="EXPR", help="only these proofs: a rule id (TRN-001) or a pytest -k expression")
    p.add_argument("pytest_args", nargs=argparse.REMAINDER, help="after --, more pytest arguments, e.g. -- -x -q")
    known = {name for names in COMMAND_MODULES.values() for name in names} | set(sub.choices)
    for module_name, names in COMMAND_MODULES.items():
        if command in names or command not in known:  # the command asked for (all of them when it is unknown)
            importlib.import_module(module_name).register(add)
        else:  # listed in the usage, loaded only when asked for
            for name in names:
                sub.add_parser(name, help=COMMAND_HELP[name], description=COMMAND_HELP[name])
    return ap


PASS_THROUGH = frozenset({"fleet"})
"""Commands that take another command's options after ``--`` (``fleet run PLAN ... -- --no-tool-calls``): what
follows it is handed over as ``args.passthrough``, unparsed (argparse would match it against their positionals)."""


def main(argv: list[str] | None = None) -> int:
    whole_process = argv is None  # run as the program itself, not called by other code sharing this process
    argv = sys.argv[1:] if argv is None else argv
    command = requested_command(argv)
    passthrough: list[str] = []
    if command in PASS_THROUGH and "--" in argv:
        argv, passthrough = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    args = parser(command).parse_args(argv)
    args.whole_process = whole_process
    args.passthrough = passthrough
    try:
        return args.func(args)
    except UsageError as exc:
        print(f"mcp-handbook: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())  # the UsageError it catches is command.py's, the one every command module raises
