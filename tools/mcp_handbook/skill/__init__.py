"""The Agent Skill bundle: the doctrine packaged for coding agents.

``skill_files`` returns the bundle as ``{relative path: text}`` so the same
content can be written as a folder (``write_skill``, all or nothing) or zipped
for the site (``skill_zip``, reproducible bytes).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ..export.files import write_tree, zip_bytes
from ..export.worksheet import Stamp
from ..model import Corpus, Rule
from .render import THREATS_REFERENCE, reference_file, reference_name, skill_md, threats_reference

SKILL_NAME = "mcp-server-authoring"
"""The bundle's default name; the download is ``mcp-server-authoring-skill.zip``."""
NAME_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
NAME_LIMIT = 64


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a valid Agent Skill name, or None."""
    if len(name) > NAME_LIMIT:
        return f"skill name {name!r} is longer than {NAME_LIMIT} characters"
    if not NAME_PATTERN.match(name):
        return f"skill name {name!r} must be lowercase letters, digits and single hyphens, not starting or ending with one"
    return None


def skill_files(corpus: Corpus, rules: Sequence[Rule], stamp: Stamp, *, name: str = SKILL_NAME) -> dict[str, str]:
    """``SKILL.md``, one reference file per gate that holds any of ``rules``, and the threats reference."""
    problem = name_problem(name)
    if problem:
        raise ValueError(problem)
    gates = [g for g in corpus.gates if any(r.gate == g.key for r in rules)]
    files = {"SKILL.md": skill_md(corpus, name, rules, gates, stamp)}
    for gate in gates:
        files[reference_name(gate.key)] = reference_file(corpus, gate, [r for r in rules if r.gate == gate.key])
    if THREATS_REFERENCE in files:
        raise ValueError(f"gate key 'threats' would overwrite {THREATS_REFERENCE}; rename the gate")
    files[THREATS_REFERENCE] = threats_reference(corpus, rules)
    return files


def write_skill(folder: Path, files: dict[str, str]) -> None:
    """Replace ``folder`` with the bundle; a failure leaves the old bundle (or nothing) in place."""
    write_tree(folder, files, marker="SKILL.md")


def skill_zip(files: dict[str, str], *, name: str = SKILL_NAME, date: str) -> bytes:
    """The bundle zipped under a top folder named like the skill, as agents expect."""
    return zip_bytes({f"{name}/{rel}": text for rel, text in files.items()}, date=date)


__all__ = ["SKILL_NAME", "name_problem", "skill_files", "skill_zip", "write_skill"]
