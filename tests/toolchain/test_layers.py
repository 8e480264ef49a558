"""The toolchain's import graph: no circles, no module over 400 lines, and no import from a lower floor to a higher one.

Every import counts, wherever it is written: at the top, inside a function (a late import only hides a circle
from Python, not from the reader), under ``if TYPE_CHECKING`` (the type is still a dependency), and a module named
in a string (``importlib.import_module``, ``python -m``), which is how ``cli.py`` loads its command modules.
A package's ``__init__`` that Python runs on the way to a submodule is not counted: importing
``mcp_handbook.model`` does not make ``model`` depend on what ``load_corpus`` does.

The floors are listed bottom-up in the docstring of ``mcp_handbook/__init__.py``; ``FLOORS`` below places every
module on one, and a test checks the two lists agree.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[2] / "tools"
MAX_LINES = 400

FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("reference server", ("reference_server",)),
    ("foundation", ("mcp_handbook.addresses", "mcp_handbook.bounded_json", "mcp_handbook.procs", "mcp_handbook.installed", "mcp_handbook.reasons",
                    "mcp_handbook.command", "mcp_handbook.git")),
    ("doctrine model", ("mcp_handbook.fields", "mcp_handbook.threats", "mcp_handbook.model")),
    ("parse", ("mcp_handbook.parse", "mcp_handbook.parse_cache", "mcp_handbook.history", "mcp_handbook.snippets",
               "mcp_handbook.naming")),
    ("wire", ("mcp_handbook.wire", "mcp_handbook.wire_reading", "mcp_handbook.jsonrpc_client")),
    ("probes", ("mcp_handbook.probes",)),
    ("proving", ("mcp_handbook.promises", "mcp_handbook.verify", "mcp_handbook.evidence", "mcp_handbook.proof_times",
                 "mcp_handbook.pytest_plugin", "mcp_handbook.proving", "mcp_handbook.lint", "mcp_handbook.vocabulary",
                 "mcp_handbook.seams",
                 "mcp_handbook.__init__")),
    ("documents", ("mcp_handbook.export.worksheet", "mcp_handbook.export.filters", "mcp_handbook.export.rules",
                   "mcp_handbook.export.schemas", "mcp_handbook.export.formats", "mcp_handbook.export.files",
                   "mcp_handbook.export.xlsx", "mcp_handbook.report", "mcp_handbook.contrib")),
    ("audit", ("mcp_handbook.audit",)),
    ("bundles", ("mcp_handbook.export", "mcp_handbook.site", "mcp_handbook.site_build", "mcp_handbook.mcp_server",
                 "mcp_handbook.fleet")),
    ("commands", ("mcp_handbook.cli", "mcp_handbook.publish", "mcp_handbook.evidence_cmd", "mcp_handbook.export.cli",
                  "mcp_handbook.report.cli", "mcp_handbook.audit.cli", "mcp_handbook.contrib.commands",
                  "mcp_handbook.mcp_server.cli", "mcp_handbook.fleet.cli", "mcp_handbook.fleet.worker")),
)
"""Each floor with the modules on it (a name covers its submodules, ``pkg.__init__`` only the package itself; the
longest name that covers a module wins).
A module may import its own floor and those below; a new module needs a line here only if no name covers it."""

OWNED_ELSEWHERE: dict[str, str] = {}
"""Modules another helper was rewriting while the layers were drawn (issue 27, five helpers at once): their circles
and sizes are not judged here yet. The lead removes each line once the branches are merged and the test passes."""


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    is_package: bool


def modules() -> dict[str, Module]:
    found = {}
    for path in sorted(TOOLS.rglob("*.py")):
        parts = list(path.relative_to(TOOLS).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        found[name] = Module(name, path, is_package)
    return found


def _absolute(module: Module, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.name.split(".") if module.is_package else module.name.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _known(name: str, known: dict[str, Module]) -> str | None:
    """The module of ours ``name`` is, or lives in (``a.b.attr`` is ``a.b``), or None for one not in tools/."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _docstrings(tree: ast.Module) -> set[int]:
    """ids of the string constants that are docstrings (of the module, a class, a function), not names used."""
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def imports_of(module: Module, known: dict[str, Module]) -> set[str]:
    """Every module of tools/ that ``module`` imports, at any depth of its code, or names in a string."""
    tree = ast.parse(module.path.read_text(encoding="utf-8"), str(module.path))
    docstrings = _docstrings(tree)
    found: set[str | None] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(_known(alias.name, known) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            for alias in node.names:  # `from pkg import mod` imports pkg.mod; `from mod import name` imports mod
                found.add(f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else _known(source, known))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
              and node.value in known):
            found.add(node.value)
    found.discard(None)
    found.discard(module.name)
    return {name for name in found if name}


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """Read once per test process: every test here only reads it."""
    known = modules()
    return {name: imports_of(module, known) for name, module in known.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected sets of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
    return found


def _covering(name: str, prefixes: list[str]) -> str | None:
    matches = [p for p in prefixes if name == p or name.startswith(p + ".") or p == f"{name}.__init__"]
    return max(matches, key=len) if matches else None


def owned_elsewhere(name: str) -> bool:
    return _covering(name, list(OWNED_ELSEWHERE)) is not None


def floor_of(name: str) -> int | None:
    placed = {prefix: number for number, (_, prefixes) in enumerate(FLOORS) for prefix in prefixes}
    prefix = _covering(name, list(placed))
    return None if prefix is None else placed[prefix]


def test_the_graph_sees_late_imports_and_names_in_strings() -> None:
    """The graph counts what a top-level-only reading would miss, or this whole file would prove little."""
    graph = import_graph()
    assert "mcp_handbook.audit.cli" in graph["mcp_handbook.cli"], "cli.py loads its command modules by name"
    assert "mcp_handbook.promises.child" in graph["mcp_handbook.promises.run"], "run.py starts the child by name"
    assert "mcp_handbook.model" in graph["mcp_handbook.threats"], "under TYPE_CHECKING, still a dependency"
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circles() -> None:
    found = [group for group in circles(import_graph()) if not all(owned_elsewhere(m) for m in group)]
    assert not found, "import circles (each set imports itself through the others):\n" + "\n".join(map(str, found))


def test_no_module_over_400_lines() -> None:
    sizes = {name: len(m.path.read_text(encoding="utf-8").splitlines()) for name, m in modules().items()}
    over = {name: lines for name, lines in sizes.items() if lines > MAX_LINES and not owned_elsewhere(name)}
    assert not over, f"modules over {MAX_LINES} lines (split them by responsibility): {over}"


def test_every_module_is_on_a_floor() -> None:
    unplaced = sorted(name for name in modules() if floor_of(name) is None)
    assert not unplaced, f"modules on no floor: add each to FLOORS in {Path(__file__).name}: {unplaced}"


def test_no_import_from_a_lower_floor_to_a_higher_one() -> None:
    names = [name for name, _ in FLOORS]
    upward = []
    for source, targets in import_graph().items():
        for target in sorted(targets):
            low, high = floor_of(source), floor_of(target)
            if low is not None and high is not None and high > low and not owned_elsewhere(source):
                upward.append(f"{source} ({names[low]}) imports {target} ({names[high]})")
    assert not upward, "imports reaching up a floor:\n" + "\n".join(upward)


def test_the_package_docstring_lists_the_floors_bottom_up() -> None:
    import mcp_handbook

    listed = re.findall(r"^\s*\d+\.\s+\*\*([^*]+)\*\*", mcp_handbook.__doc__ or "", re.MULTILINE)
    assert listed == [name for name, _ in FLOORS]
