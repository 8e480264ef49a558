"""``mcp-handbook export worksheet|rules|skill``: command-line glue only; the work is in this package."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from .. import load_corpus
from ..command import EXIT_OK, UsageError, doctrine_root
from ..model import Corpus
from .filters import FILTER_HELP, FILTER_KEYS, normalise, select_rules, unknown_values

FORMATS = ("md", "csv", "json", "xlsx")
REVIEW_OPTIONS = {
    "server_name": "the reviewed server's name, written into the worksheet's stamp (worksheet only)",
    "server_version": "the reviewed server's version or commit (worksheet only)",
    "reviewer": "who reviews it (worksheet only)",
    "server_transport": "how the server is reached and the protocol eras it speaks, e.g. 'Streamable HTTP; 2025-11-25 and "
                        "2026-07-28' (worksheet only; an audit writes what it saw)",
}
"""Options that record what was reviewed, by stamp field (``export.worksheet.REVIEW_FIELDS``)."""


def _corpus(args: argparse.Namespace) -> Corpus:
    corpus = load_corpus(doctrine_root(args))
    if corpus.diagnostics:
        # a draft rule elsewhere should not block a reviewer's export; the site build is the strict gate
        print(f"mcp-handbook: warning: the content has {len(corpus.diagnostics)} problem(s) (run `mcp-handbook check`); "
              "a rule that could not be read is missing from this export", file=sys.stderr)
    return corpus


def _format(args: argparse.Namespace, out: Path) -> str:
    if args.format:
        return args.format
    suffix = out.suffix.lstrip(".").lower()
    if suffix in FORMATS:
        return suffix
    raise UsageError(f"{out}: cannot tell the format from the suffix; pass --format {'|'.join(FORMATS)}")


def _selection(corpus: Corpus, args: argparse.Namespace):
    filters = normalise({key: getattr(args, key) for key in FILTER_KEYS})
    problems = unknown_values(corpus, filters)
    if problems:
        raise UsageError("; ".join(problems))
    return select_rules(corpus, filters), filters


def _worksheet(corpus: Corpus, args: argparse.Namespace, out: Path) -> str:
    from .formats import write_worksheet
    from .worksheet import REVIEW_FIELDS, stamp_for, worksheet_rows

    fmt = _format(args, out)
    rules, filters = _selection(corpus, args)
    review = {name: getattr(args, name) or "" for name in REVIEW_FIELDS}
    write_worksheet(worksheet_rows(rules, corpus), stamp_for(corpus, filters=filters, **review), fmt=fmt, path=out)
    return f"wrote {out} ({fmt}, {len(rules)} rules, doctrine {corpus.version})"


def _rules(corpus: Corpus, args: argparse.Namespace, out: Path) -> str:
    from .files import atomic_write
    from .rules import to_rules_json
    from .worksheet import stamp_for

    rules, filters = _selection(corpus, args)
    atomic_write(out, to_rules_json(corpus, rules, stamp_for(corpus, filters=filters)))
    return f"wrote {out} ({len(rules)} rules, doctrine {corpus.version})"


def _skill(corpus: Corpus, args: argparse.Namespace, out: Path) -> str:
    from .skill import name_problem, skill_files, write_skill
    from .worksheet import stamp_for

    name = args.name or out.name
    problem = name_problem(name)
    if problem:
        raise UsageError(f"{problem}; the folder name is the skill name (use -o .../mcp-server-authoring, or --name)")
    rules, filters = _selection(corpus, args)
    if not rules:
        raise UsageError("no rule matches the filters: a skill bundle needs at least one rule")
    try:
        files = skill_files(corpus, rules, stamp_for(corpus, filters=filters), name=name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        write_skill(out, files)
    except FileExistsError as exc:
        raise UsageError(str(exc)) from None
    references = sum(path.startswith("references/") for path in files)
    scripts = sum(path.startswith("scripts/") for path in files)
    return (f"wrote {out} (skill {name}: {len(rules)} rules, {references} reference file(s), {scripts} script(s), "
            f"doctrine {corpus.version})")


EXPORTS: dict[str, Callable[[Corpus, argparse.Namespace, Path], str]] = {"worksheet": _worksheet, "rules": _rules, "skill": _skill}


def run(args: argparse.Namespace) -> int:
    given = [name for name in REVIEW_OPTIONS if getattr(args, name, None)]
    if given and args.what != "worksheet":
        raise UsageError(f"--{given[0].replace('_', '-')}: only a worksheet records what was reviewed")
    corpus = _corpus(args)
    out = Path(args.output)
    if args.what != "skill" and out.is_dir():
        raise UsageError(f"{out} is a folder; -o names the file to write")
    try:
        print(EXPORTS[args.what](corpus, args, out))
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
    return EXIT_OK


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    p = add("export", run, "export the audit worksheet (md, csv, json, xlsx), rules.json, or the Agent Skill bundle")
    p.add_argument("what", choices=tuple(EXPORTS), help="worksheet: one row per rule; rules: every rule as JSON; skill: a SKILL.md folder")
    p.add_argument("--format", choices=FORMATS, help="worksheet format (default: from the -o suffix)")
    p.add_argument("-o", "--output", required=True, help="the file to write (for skill: the bundle folder, named like the skill)")
    p.add_argument("--name", help="skill name (default: the -o folder's name)")
    for key in FILTER_KEYS:
        p.add_argument(f"--{key}", action="append", metavar=key.upper(), help=FILTER_HELP.get(key, f"keep rules with this {key} (repeatable)"))
    for name, text in REVIEW_OPTIONS.items():
        p.add_argument(f"--{name.replace('_', '-')}", dest=name, metavar="TEXT", help=text)
