"""What pages other than a rule's own show, as one hash: a dirty rebuild is exact while it does not change.

A rule's prose (its body outside fenced blocks and headings) shows on its own page only. Everything else a
build reads shows on other pages too: a rule's front matter (titles in the nav, rows of the overview and the
worksheet, related rules), its blocks (proof status), every other page, the probes and the recorded proofs
(whether a proof is current), the templates and mkdocs.yml.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

CONTENT = "content"
RULES = "content/rules"
PROBES = "tools/mcp_handbook/probes"
EVIDENCE = "snippets/evidence.json"
FENCE = ("```", "~~~")


def shared_inputs(root: Path, custom_dir: str | None) -> str:
    """The hash of everything under ``root`` a build reads, with each rule file's prose left out."""
    digest = hashlib.sha256()
    for path in _files(root, custom_dir):
        data = path.read_bytes()
        if _is_rule(root, path):
            data = without_prose(data.decode("utf-8", "replace")).encode("utf-8")
        digest.update(str(path).encode("utf-8") + b"\0" + data + b"\0")
    return digest.hexdigest()


def _files(root: Path, custom_dir: str | None) -> Iterator[Path]:
    folders = [root / CONTENT, root / PROBES, *([Path(custom_dir)] if custom_dir else [])]
    for folder in folders:
        if folder.is_dir():
            yield from sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for name in ("mkdocs.yml", EVIDENCE):
        if (root / name).is_file():
            yield root / name


def _is_rule(root: Path, path: Path) -> bool:
    return path.suffix == ".md" and path.name != "index.md" and (root / RULES) in path.parents


def without_prose(text: str) -> str:
    """A rule file's front matter, headings and fenced blocks (fence lines included), without its prose."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---" or "---" not in lines[1:]:
        return text  # not a rule as the parser reads one: keep all of it
    end = lines.index("---", 1)
    kept, fence = lines[: end + 1], ""
    for line in lines[end + 1:]:
        stripped = line.lstrip()
        opening = next((f for f in FENCE if stripped.startswith(f)), "")
        if fence:
            kept.append(line)
            if stripped.startswith(fence) and not stripped.strip(fence[0]).strip():
                fence = ""
        elif opening:
            fence = stripped[: len(stripped) - len(stripped.lstrip(opening[0]))]
            kept.append(line)
        elif stripped.startswith("#"):
            kept.append(line)
    return "\n".join(kept)
