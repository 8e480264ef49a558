"""Is a skill bundle a valid Agent Skill, within its budgets? Each problem names the file it is in.

The Agent Skills format asks for ``SKILL.md`` with YAML front matter (``name``: lowercase letters, digits and single
hyphens, at most 64 characters, the same as the bundle's folder; ``description``: at most 1024 characters; only the
fields the format defines), and optional ``references/``, ``scripts/`` and ``assets/`` folders beside it. To that
this module adds what progressive disclosure needs: every relative link in every markdown file resolves to a file
of the bundle, every file is reached by links from ``SKILL.md`` (no orphans), ``SKILL.md`` stays under
:data:`SKILL_MD_MAX_LINES` lines and :data:`SKILL_MD_MAX_TOKENS` tokens, and each other markdown file under
:data:`REFERENCE_MAX_TOKENS`, so any one of them can be loaded alone. Tokens are counted by :mod:`.tokens`.

``export skill`` and the site's download refuse a bundle with any problem; the tests run the format's own reference
validator (``skills-ref``) beside this one where it is installed.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Iterator, Mapping
from typing import Any

import yaml
from markdown_it import MarkdownIt

from .tokens import count_tokens

NAME_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
NAME_LIMIT = 64
DESCRIPTION_LIMIT = 1024
COMPATIBILITY_LIMIT = 500
FRONT_MATTER_FIELDS = frozenset({"name", "description", "license", "allowed-tools", "metadata", "compatibility"})
"""The fields the Agent Skills format defines; any other is refused."""
FOLDERS = ("references", "scripts", "assets")
"""What may sit beside ``SKILL.md``."""
SKILL_MD_MAX_LINES = 500
SKILL_MD_MAX_TOKENS = 5_000
"""The format's guidance for ``SKILL.md``: under 500 lines and about 5,000 tokens."""
REFERENCE_MAX_TOKENS = 4_000
"""This handbook's budget for any one reference file: an agent loads one rule, or one gate's index, alone."""
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def name_problem(name: object) -> str | None:
    """Why ``name`` is not a valid Agent Skill name, or None."""
    if not isinstance(name, str) or not name:
        return "skill name must be a non-empty string"
    if len(name) > NAME_LIMIT:
        return f"skill name {name!r} is longer than {NAME_LIMIT} characters"
    if not NAME_PATTERN.match(name):
        return f"skill name {name!r} must be lowercase letters, digits and single hyphens, not starting or ending with one"
    return None


def front_matter(text: str) -> tuple[dict[str, Any] | None, str]:
    """The front matter of ``SKILL.md`` and what is wrong with it ("" when nothing)."""
    if not text.startswith("---\n"):
        return None, "does not start with YAML front matter (---)"
    parts = text.split("\n---\n", 1)
    if len(parts) < 2:
        return None, "its front matter is not closed with ---"
    try:
        data = yaml.safe_load(parts[0][4:])
    except yaml.YAMLError as exc:
        return None, f"its front matter is not YAML: {exc}"
    if not isinstance(data, dict):
        return None, "its front matter is not a mapping"
    return data, ""


def _front_matter_problems(data: dict[str, Any], folder_name: str) -> Iterator[str]:
    extra = sorted(set(map(str, data)) - FRONT_MATTER_FIELDS)
    if extra:
        yield f"SKILL.md: front matter field(s) {', '.join(extra)} are not in the Agent Skills format ({', '.join(sorted(FRONT_MATTER_FIELDS))})"
    name = data.get("name")
    problem = name_problem(name) if "name" in data else "front matter has no name"
    if problem:
        yield f"SKILL.md: {problem}"
    elif folder_name and name != folder_name:
        yield f"SKILL.md: name {name!r} differs from the bundle's folder name {folder_name!r}"
    text = data.get("description")
    if not isinstance(text, str) or not text.strip():
        yield "SKILL.md: front matter has no description"
    elif len(text) > DESCRIPTION_LIMIT:
        yield f"SKILL.md: description is {len(text)} characters, over {DESCRIPTION_LIMIT}"
    if "compatibility" in data and (not isinstance(data["compatibility"], str) or len(data["compatibility"]) > COMPATIBILITY_LIMIT):
        yield f"SKILL.md: compatibility must be a string of at most {COMPATIBILITY_LIMIT} characters"
    meta = data.get("metadata", {})
    if not isinstance(meta, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in meta.items()):
        yield "SKILL.md: metadata must map strings to strings"


@functools.cache
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark")


def links(text: str) -> list[str]:
    """Every link and image target in a markdown text (code blocks and code spans hold none)."""
    found: list[str] = []
    for token in _markdown().parse(text):
        for child in token.children or ():
            if child.type == "link_open":
                found.append(str(child.attrGet("href") or ""))
            elif child.type == "image":
                found.append(str(child.attrGet("src") or ""))
    return found


def local_target(from_file: str, href: str) -> str | None:
    """The bundle path a relative link points at (None for an address with a scheme, or an anchor alone)."""
    if not href or _SCHEME.match(href) or href.startswith("#"):
        return None
    path = href.split("#", 1)[0].split("?", 1)[0]
    return posixpath.normpath(posixpath.join(posixpath.dirname(from_file), path))


def all_links(files: Mapping[str, str]) -> dict[str, list[str]]:
    """Each markdown file's link targets (parsed once: the link check and the orphan check both read them)."""
    return {path: links(text) for path, text in files.items() if path.endswith(".md")}


def _link_problems(files: Mapping[str, str], found: Mapping[str, list[str]]) -> Iterator[str]:
    for path, hrefs in found.items():
        for href in hrefs:
            target = local_target(path, href)
            if target is None:
                continue
            if href.startswith("/") or target.startswith("../") or target == "..":
                yield f"{path}: link {href!r} leaves the bundle"
            elif target not in files:
                yield f"{path}: link {href!r} points to {target}, which the bundle does not hold"


def reachable(files: Mapping[str, str], found: Mapping[str, list[str]] | None = None) -> set[str]:
    """The files reached by following links from ``SKILL.md``."""
    found = all_links(files) if found is None else found
    seen, todo = {"SKILL.md"}, ["SKILL.md"]
    while todo:
        path = todo.pop()
        for href in found.get(path, ()):
            target = local_target(path, href)
            if target is not None and target in files and target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def _budget_problems(files: Mapping[str, str]) -> Iterator[str]:
    skill = files["SKILL.md"]
    lines = skill.count("\n") + (not skill.endswith("\n"))
    if lines >= SKILL_MD_MAX_LINES:
        yield f"SKILL.md: {lines} lines, over the budget of {SKILL_MD_MAX_LINES}"
    tokens = count_tokens(skill)
    if tokens >= SKILL_MD_MAX_TOKENS:
        yield f"SKILL.md: {tokens} tokens, over the budget of {SKILL_MD_MAX_TOKENS}"
    for path, text in files.items():
        if path != "SKILL.md" and path.endswith(".md"):
            tokens = count_tokens(text)
            if tokens >= REFERENCE_MAX_TOKENS:
                yield f"{path}: {tokens} tokens, over the budget of {REFERENCE_MAX_TOKENS} for one reference file"


def bundle_problems(files: Mapping[str, str], folder_name: str = "") -> list[str]:
    """Everything that keeps ``files`` (relative posix path -> text) from being a valid bundle in a folder named
    ``folder_name`` ("" skips that check), each naming its file. Empty: valid."""
    if "SKILL.md" not in files:
        return ["SKILL.md: missing (the bundle's entry point)"]
    problems = [f"{path}: the format keeps files other than SKILL.md under {', '.join(f + '/' for f in FOLDERS)}"
                for path in files if path != "SKILL.md" and ("/" not in path or path.split("/", 1)[0] not in FOLDERS)]
    data, problem = front_matter(files["SKILL.md"])
    if data is None:
        return [*problems, f"SKILL.md: {problem}"]
    problems += _front_matter_problems(data, folder_name)
    found = all_links(files)
    problems += _link_problems(files, found)
    linked = reachable(files, found)
    problems += [f"{path}: orphan (no link from SKILL.md reaches it)" for path in files if path not in linked]
    problems += _budget_problems(files)
    return problems


def folder_problems(folder: Any) -> list[str]:
    """:func:`bundle_problems` of a bundle written to disk (every file read as UTF-8 text)."""
    from pathlib import Path

    root = Path(folder)
    if not (root / "SKILL.md").is_file():
        return [f"{root}: no SKILL.md"]
    files: dict[str, str] = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        try:
            files[rel] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            files[rel] = ""  # a binary asset: nothing to link from, still a file to reach
    return bundle_problems(files, root.name)
