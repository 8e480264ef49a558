"""A docstring in tools/ that names a file, a diagnostic code, a rule or a module names one that exists: a reader
who follows it must not find nothing (as model.py once named ``HB101`` and ``content/gates.yml``).

What counts as a name is scoped so the check is reliable, not a guess at every word:
- a path: a backticked path with a folder and a file extension (``site_overrides/assets/filters.js``), not absolute
  and not from ``./`` or ``../`` (those are URLs and attack payloads), found when some file of the repository ends
  with it (``scripts/check_tool.py`` is the skill's);
- a diagnostic code: any ``HB...NNN`` word, documented in CONTRIBUTING.md's table;
- a rule id: ``PREFIX-NNN`` with a prefix the doctrine's ids use, a rule of content/ or a retired id;
- a module: the target of a Sphinx role (``:func:`~.parse.parse_content```) or a backticked
  ``mcp_handbook.x.y``, a module of tools/ whose top level defines the next name (and, for a class it defines, the
  one after).
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from handbook_testing import ROOT

from mcp_handbook import load_corpus

TOOLS = ROOT / "tools"
EXTENSIONS = (".py", ".md", ".yml", ".yaml", ".json", ".toml", ".sh", ".mjs", ".js", ".css", ".html", ".txt")
TICKED = re.compile(r"``([^`\s]+)``|(?<![`:])`([^`\s]+)`(?!`)")
ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|exc|obj):`~?([\w.]+)`")
HB_CODE = re.compile(r"\bHB[-A-Z0-9]*\d{3}\b")
NOT_FILES = {
    "rules/security/x.md": "an example of a page's source path, in site/links.py",
    "references/threats.md": "a file of the skill bundle that `export skill` writes",
}
"""Paths a docstring names that are not files of the repository, each with why."""


def docstrings(path: Path) -> Iterator[tuple[int, str]]:
    """Every docstring of a module: the module's, its classes' and functions', and attribute docstrings."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        body = getattr(node, "body", None)  # a lambda's or an if-expression's body is one expression
        for statement in body if isinstance(body, list) else ():
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) \
                    and isinstance(statement.value.value, str):
                yield statement.lineno, statement.value.value


@cache
def every_docstring() -> tuple[tuple[str, Path, str], ...]:
    return tuple((f"{path.relative_to(ROOT)}:{line}", path, text)
                 for path in sorted(TOOLS.rglob("*.py")) for line, text in docstrings(path))


@cache
def repository_files() -> tuple[str, ...]:
    """The checkout's files, without the installed Node tools, caches and a built site (folders pruned, not walked)."""
    skip = {".git", ".tools", "node_modules", "__pycache__", "site", ".mypy_cache", ".ruff_cache", ".hypothesis"}
    found = []
    for folder, subfolders, names in os.walk(ROOT):
        subfolders[:] = [s for s in subfolders if s not in skip]
        found += [(Path(folder) / n).relative_to(ROOT).as_posix() for n in names]
    return tuple(found)


def named_paths(text: str) -> Iterator[str]:
    for match in TICKED.finditer(text):
        token = (match[1] or match[2]).rstrip(".,:;)")
        if "/" in token and token.endswith(EXTENSIONS) and not token.startswith(("/", "./", "../")) \
                and not re.search(r"[*{}<>$~|=]|://", token):
            yield token


def test_every_path_a_docstring_names_is_a_file() -> None:
    files = repository_files()
    missing = [f"{where}: {path}" for where, _, text in every_docstring() for path in named_paths(text)
               if path not in NOT_FILES and not any(f == path or f.endswith("/" + path) for f in files)]
    assert missing == []


def test_every_diagnostic_code_a_docstring_names_is_documented() -> None:
    documented = set(re.findall(r"^\| (HB\d{3}) \|", (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"), re.M))
    unknown = [f"{where}: {code}" for where, _, text in every_docstring() for code in HB_CODE.findall(text)
               if code not in documented]
    assert unknown == []


def test_every_rule_id_a_docstring_names_exists() -> None:
    corpus = load_corpus(ROOT)
    ids = {r.id for r in corpus.rules} | {str(entry.get("id")) for entry in corpus.retired}
    prefixes = "|".join(sorted({i.split("-")[0] for i in ids}))
    pattern = re.compile(rf"\b(?:{prefixes})-\d{{3}}\b")
    unknown = [f"{where}: {rule}" for where, _, text in every_docstring() for rule in pattern.findall(text)
               if rule not in ids]
    assert unknown == []


def module_file(dotted: str) -> Path | None:
    path = TOOLS.joinpath(*dotted.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _defined(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            names |= {e.id for t in node.targets if isinstance(t, ast.Tuple) for e in t.elts if isinstance(e, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.If, ast.Try)):
            names |= _defined(node.body) | _defined(getattr(node, "orelse", []))
    return names


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def resolves(dotted: str) -> bool:
    """A module of tools/, then a name its top level defines, then (for a class it defines) a name in the class."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        found = module_file(".".join(parts[:cut]))
        if found is None:
            continue
        rest, tree = parts[cut:], _tree(found)
        if not rest:
            return True
        if rest[0] not in _defined(tree.body):
            return False
        classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        if len(rest) > 1 and rest[0] in classes:  # a class with bases may inherit the name: not judged
            cls = classes[rest[0]]
            return rest[1] in _defined(cls.body) or bool(cls.bases)
        return True
    return False


def absolute(name: str, path: Path) -> str:
    """``.x.y`` / ``..x.y`` read as a relative import from the module at ``path`` would be."""
    if not name.startswith("."):
        return name
    dots = len(name) - len(name.lstrip("."))
    package = path.parent.relative_to(TOOLS).parts
    base = package[: len(package) - (dots - 1)]
    return ".".join((*base, name.lstrip(".")))


def named_modules(text: str, path: Path) -> Iterator[str]:
    for match in ROLE.finditer(text):
        yield absolute(match[1], path)
    for match in TICKED.finditer(text):
        token = (match[1] or match[2]).rstrip(".,:;()")
        if re.fullmatch(r"(?:mcp_handbook|reference_server)(?:\.\w+)+", token):
            yield token


def test_every_module_a_docstring_names_exists() -> None:
    unknown = [f"{where}: {name}" for where, path, text in every_docstring() for name in named_modules(text, path)
               if name.split(".")[0] in ("mcp_handbook", "reference_server") and not resolves(name)]
    assert unknown == []


@pytest.mark.parametrize(("text", "expected"), [
    ("see ``content/gates.yml``", ["content/gates.yml"]),
    ("the ``tools/list`` method, ``x.py`` alone, ``/tmp/a.md``, ``../ws/secret.txt``", []),
])
def test_the_path_scan_sees_paths_and_only_paths(text: str, expected: list[str]) -> None:
    assert list(named_paths(text)) == expected


def test_the_scans_catch_what_model_py_once_named() -> None:
    """The names the issue found in model.py's docstrings would each fail the checks above."""
    stale = "``HB101``, ``HB-STDIO-001``, ``content/gates.yml``, :func:`~.parse.parse_everything`"
    here = TOOLS / "mcp_handbook" / "model.py"
    assert HB_CODE.findall(stale) == ["HB101", "HB-STDIO-001"]
    assert not any(f.endswith("content/gates.yml") for f in repository_files())
    assert [resolves(n) for n in named_modules(stale, here)] == [False]
    assert resolves(absolute(".parse.parse_content", here)) and resolves("mcp_handbook.model.Corpus.page_url")
