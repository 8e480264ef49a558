"""``mcp-handbook report FILE``: findings from a filled worksheet; the exit code gates CI."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from .. import load_corpus
from ..command import UsageError, doctrine_root
from ..fields import PROFILES
from . import make_report, problems_json, render_json, render_text

EXIT_HIGH_FAIL, EXIT_BAD_INPUT = 1, 2


def run(args: argparse.Namespace) -> int:
    root = doctrine_root(args)
    if not (root / "content" / "handbook.yml").is_file():
        raise UsageError(f"no handbook at {root}: no content/handbook.yml to judge the worksheet against")
    result = make_report(Path(args.file), root=root, current=load_corpus(root), file=args.file, profile=args.profile)
    if isinstance(result, list):
        if args.format == "json":
            print(problems_json(args.file, result), end="")
        for problem in result:
            print(problem, file=sys.stderr)
        print(f"{len(result)} problem(s) in {args.file}; nothing was reported", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(render_json(result) if args.format == "json" else render_text(result), end="")
    return result.exit_code


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    p = add("report", run, "findings from a filled worksheet (md, csv, json, xlsx); exit 1 if a HIGH item of the profile is Fail, 2 on bad input")
    p.add_argument("file", help="the filled worksheet")
    p.add_argument("--format", choices=("text", "json"), default="text", help="text for people (default), json for machines")
    p.add_argument("--profile", choices=PROFILES, default="baseline",
                   help="whose HIGH failures set exit 1: spec (the specification's MUST/SHOULD), baseline (spec plus "
                        "security, the default), full (opinions too)")
