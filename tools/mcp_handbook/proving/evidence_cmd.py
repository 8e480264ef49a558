"""The ``mcp-handbook evidence`` command: record the proofs the site shows, or check they are fresh.

Recording proves the blocks whose proofs are missing or stale (or every block, or one rule's), on the runner pytest
uses, and then runs the other blocks of the rules it proved (those no probe proves), so one command tells a
contributor whether every block of the rule they changed does what it says."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from .. import load_corpus
from ..model import Rule, Snippet
from ..promises.run import judge_block, runs_elsewhere
from . import evidence
from .pool import prove

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


def _root(args: argparse.Namespace) -> Path:
    from ..command import find_root  # raises the commands' UsageError, which main() reports

    return Path(args.root).resolve() if args.root else find_root(Path.cwd().resolve())


def cmd_evidence(args: argparse.Namespace) -> int:
    # lint problems are `check`'s to report; a block that cannot run is reported below as broken
    corpus = load_corpus(_root(args), proving=True)
    if args.check:
        problem = evidence.file_problem(corpus.root)
        if problem:
            print(problem)
            return EXIT_PROBLEMS
        state = evidence.check(corpus)
        for line in state.lines():
            print(line)
        total = len(evidence.provable_snippets(corpus))
        if state.fresh:
            print(f"ok: {total} recorded proof(s) are current", file=sys.stderr)
        return EXIT_OK if state.fresh else EXIT_PROBLEMS
    unknown = [i for i in args.rule or () if corpus.rule(i) is None]
    if unknown:
        print(f"mcp-handbook: no rule with id {', '.join(unknown)}", file=sys.stderr)
        return EXIT_USAGE
    entries, verdicts = evidence.record(corpus, rule_ids=args.rule or (), everything=args.all)
    changed = evidence.write(corpus.root, entries)
    from .pytest_plugin import explain, explain_block

    failed = [v for v in verdicts if not v.ok]
    for verdict in failed:
        rule = corpus.rule(verdict.snippet.rule_id)
        print(explain(verdict, rule) if rule else verdict.snippet.name)
    written = "written" if changed else "unchanged"
    print(f"{evidence.EVIDENCE_FILE}: {written} ({len(verdicts)} proof(s) run, {len(entries)} recorded, {len(failed)} failed)")
    rules = [r for r in corpus.rules if r.id in set(args.rule or ()) | {v.snippet.rule_id for v in verdicts}]
    blocks = _other_blocks(rules)
    if blocks:
        by_id = {r.id: r for r in rules}
        judged = [v for v in prove(blocks, lambda job: judge_block(*job), name=lambda job: f"{job[1].name}:run") if not v.ok]
        for block_verdict in judged:
            print(explain_block(block_verdict, by_id[block_verdict.block.rule_id]))
        print(f"other blocks of the same rules: {len(blocks)} run or checked, {len(judged)} failed")
        return EXIT_PROBLEMS if failed or judged else EXIT_OK
    return EXIT_PROBLEMS if failed else EXIT_OK


def _other_blocks(rules: list[Rule]) -> list[tuple[Rule, Snippet]]:
    """The blocks of ``rules`` no probe proves (run alone, against a promise, or by their language's checker): the
    command proves a rule's whole set of blocks, as ``pytest`` on its file does, so a contributor runs one."""
    return [(rule, block) for rule in rules for block in rule.blocks if not runs_elsewhere(rule, block) and not block.norun]


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    p = add("evidence", cmd_evidence, "record each WRONG/CORRECT block's proof for the site (or --check it is fresh)")
    p.add_argument("--check", action="store_true", help="exit 1 if any recorded proof is missing or stale; run nothing")
    p.add_argument("--all", action="store_true", help="re-run every proof, not only missing or stale ones")
    p.add_argument("-k", "--rule", action="append", metavar="RULE-ID", help="re-run this rule's proofs (repeatable)")
