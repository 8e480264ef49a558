"""``mcp-handbook new-rule GATE SLUG [--automated]``: start a rule where a contributor would otherwise copy a
neighbour and guess. It writes ``content/rules/<gate>/<slug>.md`` with the next free id of the gate's area and, for
an automated rule, the probe module ``probes/<gate folder>/<probe>.py`` registered under the rule's name
(:mod:`mcp_handbook.naming`). Both are in the shape ``mcp-handbook check`` expects; every decision left to the
author is marked ``TODO(new-rule)``, and ``check`` names each one still there (HB016). This module prints."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..command import EXIT_OK, EXIT_USAGE, UsageError, handbook_root
from ..model import Corpus
from ..naming import PLACEHOLDER, gate_folder, probe_name
from ..parse import parse_content

SLUG = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
"""A rule file's name without ``.md``: lower-case words joined by ``-`` (it becomes the probe's Python name)."""
REASON = "rule_broken"
"""The FAIL reason the skeletons share (the rule's clause, its WRONG block and the probe's vocabulary): the
author renames it in both files to say what the probe saw."""
TODO = PLACEHOLDER
CHECKOUT_PROBES = Path("tools", "mcp_handbook", "probes")
"""Where a checkout keeps its probes (the package :data:`~mcp_handbook.naming.PROBES_DIR` when run from it)."""


@dataclass(frozen=True, slots=True)
class NewRule:
    """What ``new-rule`` writes: the rule file and, for an automated rule, its probe module."""

    rule_id: str
    rule_path: Path
    rule_text: str
    probe_path: Path | None = None
    probe_text: str = ""


def id_prefix(corpus: Corpus, gate: str) -> str:
    """The id area of ``gate`` (``SEC`` for security), read from the ids its rules carry."""
    prefixes = sorted({rule.id.split("-", 1)[0] for rule in corpus.rules if rule.gate == gate})
    if len(prefixes) != 1:
        found = f"its rules use {', '.join(prefixes)}" if prefixes else "it has no rule yet"
        raise UsageError(f"cannot tell gate {gate}'s id prefix: {found}; write its first rule by hand with `id: AREA-001`")
    return prefixes[0]


def next_free_id(corpus: Corpus, prefix: str) -> str:
    """One past the highest ``prefix`` id ever used, retired ones included (content/handbook.yml): an id is never
    reused, and a gap may be a number a deleted rule once had."""
    used = [rule.id for rule in corpus.rules] + [str(entry.get("id", "")) for entry in corpus.retired]
    numbers = [int(number) for rule_id in used if (number := rule_id.removeprefix(f"{prefix}-")).isdigit()
               and rule_id.startswith(f"{prefix}-")]
    return f"{prefix}-{max(numbers, default=0) + 1:03d}"


def next_minor(version: str) -> str:
    """The version a release adding a rule will have (content/versioning.md: a new rule is a minor release)."""
    major, minor, _patch = (int(part) for part in version.split("."))
    return f"{major}.{minor + 1}.0"


def plan(root: Path, gate: str, slug: str, *, automated: bool) -> NewRule:
    """What to write for rule ``slug`` in ``gate``; a :class:`UsageError` naming what is wrong otherwise."""
    corpus = parse_content(root)
    gates = [g.key for g in corpus.gates]
    if gate not in gates:
        raise UsageError(f"unknown gate {gate!r}: content/handbook.yml declares {', '.join(gates)}")
    if not SLUG.match(slug):
        raise UsageError(f"slug {slug!r} is not lower-case words joined by '-' (e.g. tool-count-small); it names the file "
                         "and, with '_' for '-', the probe")
    rule_path = root / "content" / "rules" / gate / f"{slug}.md"
    if rule_path.exists():
        raise UsageError(f"{rule_path.relative_to(root)} exists already")
    taken = [r.path for r in corpus.rules if Path(r.path).stem == slug]
    if taken:
        raise UsageError(f"slug {slug!r} is taken by {taken[0]}: a probe is named after its rule's slug, so slugs are unique")
    rule_id = next_free_id(corpus, id_prefix(corpus, gate))
    since = next_minor(corpus.version)
    if not automated:
        return NewRule(rule_id, rule_path, manual_rule_text(rule_id, gate, since))
    name = probe_name(slug)
    package = root / CHECKOUT_PROBES
    if not package.is_dir():
        raise UsageError(f"--automated writes the probe into a checkout's tools/mcp_handbook/probes/, and {root} has none")
    probe_path = package / gate_folder(gate) / f"{name}.py"
    if probe_path.exists():
        raise UsageError(f"{probe_path} exists already: the probe module of rule {slug} would replace it")
    return NewRule(rule_id, rule_path, automated_rule_text(rule_id, gate, name, since), probe_path,
                   probe_text(rule_id, name))


def write(new: NewRule) -> list[Path]:
    """Write the files (never over an existing one); return them in the order written."""
    written = []
    for path, text in ((new.rule_path, new.rule_text), (new.probe_path, new.probe_text)):
        if path is None:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as out:  # "x": a file that appeared since plan() is not overwritten
            out.write(text)
        written.append(path)
    return written


_FRONT = """---
id: {rule_id}
title: "{todo}: the claim, short and imperative"
scope: opinionated        # {todo}: universal (basis spec-must, spec-should or security) | opinionated | stack
basis: practice           # {todo}: spec-must | spec-should (add spec:, quote:) | security (add threats:, attack:) | practice
severity: medium          # {todo}: high | medium | low
gate: {gate}
check: {check}
{automated}since: "{since}"
summary: "{todo}: one sentence for tables and the worksheet."
---
"""
_AUTOMATED_FIELDS = """probe: {probe}
seam: tool                # the reference-server seam the blocks replace (tool: a TOOL and its handle)
fix: "{todo}: what an author changes when the probe fails."
clauses:
  - {{says: "{todo}: the claim's first clause", seen_by: [{reason}]}}
"""
_SECTIONS_BEFORE = """
{todo}: the claim, in one or two sentences.

## Why it matters

{todo}: what goes wrong without the rule, and what the specification says.

## What to do

{todo}: what to do, in prose.
"""
_BLOCKS = '''
```python wrong title="{todo}: the mistake, in a few words" expect={reason}
TOOL = {{
    "name": "example_tool",
    "description": "{todo}: a tool that breaks the rule.",
    "inputSchema": {{"type": "object", "properties": {{}}, "additionalProperties": False}},
}}


def handle(arguments, ctx):
    return {{"content": [{{"type": "text", "text": "{todo}: what it answers"}}]}}
```

```python correct title="{todo}: the fix, in a few words"
TOOL = {{
    "name": "example_tool",
    "description": "{todo}: the same tool, keeping the rule.",
    "inputSchema": {{"type": "object", "properties": {{}}, "additionalProperties": False}},
}}


def handle(arguments, ctx):
    return {{"content": [{{"type": "text", "text": "{todo}: what it answers"}}]}}
```
'''
_SECTIONS_AFTER = """
## How it is verified

{how}

## Pitfalls

- {todo}: a mistake that looks right.

## When to deviate

{todo}: in one line why the rule is not universal, then when a team may reasonably do otherwise (delete this
section when the basis makes the rule universal).

## References

- {todo}: the specification section, CWE or source the rule rests on.
"""


def automated_rule_text(rule_id: str, gate: str, probe: str, since: str) -> str:
    fields = _AUTOMATED_FIELDS.format(probe=probe, todo=TODO, reason=REASON)
    return (_FRONT.format(rule_id=rule_id, todo=TODO, gate=gate, check="automated", automated=fields, since=since)
            + _SECTIONS_BEFORE.format(todo=TODO) + _BLOCKS.format(todo=TODO, reason=REASON)
            + _SECTIONS_AFTER.format(todo=TODO, how=f"Automated, probe `{probe}`. {TODO}: what it sends and what it observes."))


def manual_rule_text(rule_id: str, gate: str, since: str) -> str:
    return (_FRONT.format(rule_id=rule_id, todo=TODO, gate=gate, check="manual", automated="", since=since)
            + _SECTIONS_BEFORE.format(todo=TODO)
            + _SECTIONS_AFTER.format(todo=TODO, how=f"Manual: {TODO}: exactly how a reviewer checks it."))


_PROBE = '''"""{rule_id}: {todo}: what the probe checks and why, in two sentences.

Runs over the real pipe against any server; see CONTRIBUTING.md, "Writing a probe", for the contract (reasons,
safety, N/A, deterministic evidence) and the flags ``@probe`` takes for what the probe needs.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import Finding, Target, failed, not_applicable, passed, session_with_tools

REASONS = {{
    "{reason}": "{todo}: what a FAIL with this reason means (rename the code to say what the probe saw)",
}}


@probe("{name}", "{todo}: what it observes, in a phrase", reasons=REASONS)
def {name}(target: Target) -> Finding:
    """Judge every listed tool with :func:`breaks_the_rule` ({todo}: or send what the rule is about instead)."""
    session, _init, tools = session_with_tools(target)
    if not tools:
        return not_applicable("the server lists no tools")
    breaking = [str(tool.get("name")) for tool in tools if breaks_the_rule(tool)]
    if breaking:
        return failed("{reason}", f"{{len(breaking)}} tool(s) break the rule: {{', '.join(breaking)}}",
                      *session.transcript(limit=6))
    return passed(f"{{len(tools)}} tool(s) listed, none breaks the rule")


def breaks_the_rule(tool: dict[str, Any]) -> bool:
    """{todo}: whether one listed tool breaks the rule."""
    raise NotImplementedError("{todo}: judge one listed tool")
'''


def probe_text(rule_id: str, name: str) -> str:
    return _PROBE.format(rule_id=rule_id, name=name, todo=TODO, reason=REASON)


def cmd_new_rule(args: argparse.Namespace) -> int:
    try:  # caught here too: under `python -m mcp_handbook.cli` that module's UsageError is another class
        root = handbook_root(args)
        new = plan(root, args.gate, args.slug, automated=args.automated)
        written = write(new)
    except (UsageError, FileExistsError) as exc:
        print(f"mcp-handbook: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for path in written:
        shown = path.relative_to(root) if path.is_relative_to(root) else path
        print(f"{shown}: written ({new.rule_id})" if path == new.rule_path else f"{shown}: written")
    print(f"next: replace each {TODO} (`mcp-handbook check` lists those left, HB016), then `mcp-handbook snippets` "
          f"and `pytest {new.rule_path.relative_to(root)}`", file=sys.stderr)
    return EXIT_OK


def register(add: Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser]) -> None:
    p = add("new-rule", cmd_new_rule, "write a new rule file with the next free id (and, --automated, its probe module)")
    p.add_argument("gate", metavar="GATE", help="a gate key of content/handbook.yml, e.g. security or agent-ux")
    p.add_argument("slug", metavar="SLUG", help="the rule file's name without .md, e.g. tool-count-small")
    p.add_argument("--automated", action="store_true",
                   help="a probe proves the rule: also write probes/<gate folder>/<slug with _>.py, registered under that name")
