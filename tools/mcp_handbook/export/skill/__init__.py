"""The Agent Skill bundle: the doctrine packaged for coding agents.

``skill_files`` returns the bundle as ``{relative path: text}`` so the same
content can be written as a folder (``write_skill``, all or nothing) or zipped
for the site (``skill_zip``, reproducible bytes). It is rendered from the one
parsed corpus (:mod:`.render`) and refused unless it is a valid Agent Skill
within its budgets (:mod:`.validate`): an invalid bundle is never written.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ...model import Corpus, Rule
from ..files import write_tree, zip_bytes
from ..worksheet import Stamp
from .render import (AUDIT_SERVER, CHECK_TOOL, THREATS_REFERENCE, gate_index, reference_name, rule_file, rule_reference,
                     skill_md, threats_reference)
from .validate import bundle_problems, name_problem

SKILL_NAME = "mcp-server-authoring"
"""The bundle's default name; the download is ``mcp-server-authoring-skill.zip``."""
SCRIPTS = Path(__file__).resolve().parent / "scripts"
"""The scripts shipped in the bundle (``scripts/``), kept as real files so they are linted and tested as code."""
DOCTRINE_MARK = "__DOCTRINE_VERSION__"


class InvalidBundle(ValueError):
    """The rendered bundle breaks the Agent Skills format or a budget; ``problems`` each name the file."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("the skill bundle is not valid, so nothing was written:\n  " + "\n  ".join(problems))
        self.problems = tuple(problems)


def _static_ids(rules: Sequence[Rule]) -> set[str]:
    from ...audit.static_check import listing_only

    return {r.id for r in rules if listing_only(r)}


def _scripts(corpus: Corpus) -> dict[str, str]:
    return {f"scripts/{path.name}": path.read_text(encoding="utf-8").replace(DOCTRINE_MARK, corpus.version)
            for path in sorted(SCRIPTS.iterdir()) if path.suffix in (".py", ".sh")}


def skill_files(corpus: Corpus, rules: Sequence[Rule], stamp: Stamp, *, name: str = SKILL_NAME) -> dict[str, str]:
    """``SKILL.md``, an index per gate that holds any of ``rules``, a file per rule, the threats reference and the
    scripts; raises :class:`InvalidBundle` when the result is not a valid bundle named ``name``."""
    problem = name_problem(name)
    if problem:
        raise ValueError(problem)
    if not rules:
        raise ValueError("a skill bundle needs at least one rule")
    gates = [g for g in corpus.gates if any(r.gate == g.key for r in rules)]
    static = _static_ids(rules)
    in_bundle = {r.id for r in rules}
    files = {"SKILL.md": skill_md(corpus, name, rules, gates, stamp, static)}
    for gate in gates:
        files[reference_name(gate.key)] = gate_index(corpus, gate, [r for r in rules if r.gate == gate.key], static)
    if THREATS_REFERENCE in files:
        raise ValueError(f"gate key 'threats' would overwrite {THREATS_REFERENCE}; rename the gate")
    files[THREATS_REFERENCE] = threats_reference(corpus, rules)
    for rule in rules:
        files[rule_file(rule.id)] = rule_reference(corpus, rule, in_bundle, static=rule.id in static)
    files.update(_scripts(corpus))
    problems = bundle_problems(files, name)
    if problems:
        raise InvalidBundle(problems)
    return files


def write_skill(folder: Path, files: dict[str, str]) -> None:
    """Replace ``folder`` with the bundle; a failure leaves the old bundle (or nothing) in place."""
    write_tree(folder, files, marker="SKILL.md")


def skill_zip(files: dict[str, str], *, name: str = SKILL_NAME, date: str) -> bytes:
    """The bundle zipped under a top folder named like the skill, as agents expect."""
    return zip_bytes({f"{name}/{rel}": text for rel, text in files.items()}, date=date)


__all__ = ["AUDIT_SERVER", "CHECK_TOOL", "InvalidBundle", "SKILL_NAME", "bundle_problems", "name_problem", "skill_files",
           "skill_zip", "write_skill"]
