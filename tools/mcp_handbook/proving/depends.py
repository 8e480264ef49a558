"""What a recorded proof depends on, computed from the code instead of listed by hand.

A proof runs the verifier (``verify.py``), its rule's probe module and, in a child process, the reference server.
What it reads of the toolchain is the import closure of the verifier and of the probe's module within
``mcp_handbook``; what it reads of the server is the import closure of ``python -m reference_server`` within
``reference_server``. Both are found by reading the files' import statements (never by importing them), and each
file counts by its *meaning*: its syntax tree without docstrings, so a comment, a docstring or a reformatting
changes no key, while any change to code a proof runs (a reason's text, a constant, a branch) changes the keys of
exactly the proofs whose closure holds that file.

Imports anywhere in a module (inside functions too: a lazy import still runs) are followed; a package's
``__init__.py`` that is only passed through on the way to a submodule is followed for its module-level imports
alone, since only those run when a submodule is imported. Imports under ``if TYPE_CHECKING:`` never run and are
skipped. A module imported dynamically (``importlib.import_module``) is not seen: the probe registry imports
every probe module that way, and a proof depends on its own probe's module only.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import json
import os
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..parse_cache import cache_dir


@dataclass(frozen=True, slots=True)
class Reading:
    """One source file as a proof depends on it."""

    meaning: str
    """A hash of its syntax tree without docstrings or other lone strings (comments and layout are not in the tree)."""
    imports: tuple[tuple[str, tuple[str, ...]], ...]
    """Every import that may run, absolute: (module, names imported from it)."""
    top_imports: tuple[tuple[str, tuple[str, ...]], ...]
    """The imports at module level only (what runs when the module is merely imported)."""


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _without_docstrings(tree: ast.AST) -> ast.AST:
    """The tree without any statement that is a lone string: a module's, class's or function's docstring, and the
    string under a constant or field that documents it (they do nothing when run)."""
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and any(isinstance(n, ast.stmt) and _is_docstring(n) for n in body):
                setattr(node, field, [n for n in body if not _is_docstring(n)] or [ast.Pass()])
    return tree


def _type_checking_only(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _absolute(node: ast.Import | ast.ImportFrom, package: str) -> Iterator[tuple[str, tuple[str, ...]]]:
    """An import statement as (module, names) pairs, relative ones resolved against ``package``."""
    if isinstance(node, ast.Import):
        yield from ((alias.name, ()) for alias in node.names)
        return
    module = node.module or ""
    if node.level:
        parts = package.split(".")
        module = ".".join([*parts[: len(parts) - node.level + 1], *([module] if module else [])])
    yield module, tuple(alias.name for alias in node.names)


def _statements(body: list[ast.stmt], *, top: bool) -> Iterator[ast.stmt]:
    """The statements that may run, nested ones included; under ``top``, none inside a function (they run only when
    it is called). A block under ``if TYPE_CHECKING:`` never runs."""
    for node in body:
        yield node
        if _type_checking_only(node):
            yield from _statements(node.orelse, top=top)  # type: ignore[attr-defined]
        elif top and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        else:
            for field in ("body", "orelse", "finalbody"):
                yield from _statements(getattr(node, field, []), top=top)
            for clause in [*getattr(node, "handlers", []), *getattr(node, "cases", [])]:  # except:, case:
                yield from _statements(clause.body, top=top)


def _imports(tree: ast.Module, package: str, *, top: bool) -> tuple[tuple[str, tuple[str, ...]], ...]:
    found = (pair for node in _statements(tree.body, top=top) if isinstance(node, (ast.Import, ast.ImportFrom))
             for pair in _absolute(node, package))
    return tuple(dict.fromkeys(found))


def module_name(path: Path, base: Path) -> str:
    """The dotted name of the module in ``path``, ``base`` being the folder on ``sys.path`` that holds its package."""
    parts = list(path.relative_to(base).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


STORE_FILE = "proof-depends.json"
"""Each file's reading by module name and content hash, kept in the user's cache folder beside the parsed corpus:
reading ~140 syntax trees takes seconds, and a run usually finds every file as the last run left it."""
MAX_STORED = 2000
_store: dict[str, list[Any]] | None = None
_store_changed = False
_store_lock = threading.Lock()


def _store_code() -> str:
    """What a stored reading was made with: this module's code and the Python that parsed it."""
    return hashlib.sha256(Path(__file__).read_bytes() + sys.version.encode("utf-8")).hexdigest()


def _stored() -> dict[str, list[Any]]:
    global _store
    if _store is None:
        folder = cache_dir()
        try:
            data = json.loads((folder / STORE_FILE).read_text(encoding="utf-8")) if folder else {}
        except (OSError, ValueError):
            data = {}
        ok = isinstance(data, dict) and data.get("code") == _store_code() and isinstance(data.get("readings"), dict)
        _store = dict(data["readings"]) if ok else {}
    return _store


def save_readings() -> None:
    """Write the readings made in this process for the next run (atomically; an unwritable folder is ignored)."""
    global _store_changed
    folder = cache_dir()
    with _store_lock:
        if not _store_changed or folder is None or _store is None:
            return
        _store_changed = False
        readings = _store if len(_store) <= MAX_STORED else dict(list(_store.items())[-MAX_STORED:])
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=folder, prefix=".proof-depends-", suffix=".json", delete=False,
                                             encoding="utf-8") as tmp:
                json.dump({"code": _store_code(), "readings": readings}, tmp)
            os.replace(tmp.name, folder / STORE_FILE)
        except OSError:
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(tmp.name)


def _parse(source: bytes, path: Path, package: str) -> Reading:
    try:
        tree = ast.parse(source, filename=str(path))
    except (SyntaxError, ValueError):  # its proofs fail to load it; they are stale all the same, by its bytes
        return Reading("unparsable:" + hashlib.sha256(source).hexdigest(), (), ())
    imports, top = _imports(tree, package, top=False), _imports(tree, package, top=True)
    meaning = hashlib.sha256(ast.dump(_without_docstrings(tree)).encode("utf-8")).hexdigest()
    return Reading(meaning, imports, top)


@functools.cache
def _read(path: Path, base: Path, stamp: tuple[int, int]) -> Reading:
    """Read once per file version (``stamp``: modification time and size), and once per content across runs."""
    global _store_changed
    source = path.read_bytes()
    name = module_name(path, base)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    key = f"{name}:{hashlib.sha256(source).hexdigest()}"
    with _store_lock:
        stored = _stored().get(key)
    if isinstance(stored, list) and len(stored) == 3:
        meaning, imports, top = stored
        return Reading(meaning, tuple((m, tuple(n)) for m, n in imports), tuple((m, tuple(n)) for m, n in top))
    read = _parse(source, path, package)
    with _store_lock:
        _stored()[key] = [read.meaning, read.imports, read.top_imports]
        _store_changed = True
    return read


def _stamp(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_size


def reading(path: Path, base: Path) -> Reading:
    return _read(path, base, _stamp(path))


def _module_file(name: str, base: Path) -> Path | None:
    folder = base.joinpath(*name.split("."))
    for candidate in (folder / "__init__.py", folder.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _targets(module: str, names: tuple[str, ...], base: Path, top: str) -> Iterator[tuple[Path, bool]]:
    """The files an import runs, each with whether it is the import's target (True) or a package passed through."""
    if module != top and not module.startswith(top + "."):
        return
    parts = module.split(".")
    for depth in range(1, len(parts)):
        if (init := _module_file(".".join(parts[:depth]), base)) is not None:
            yield init, False
    submodules = [sub for name in names if (sub := _module_file(f"{module}.{name}", base)) is not None]
    if (target := _module_file(module, base)) is not None:
        # ``from package import submodule`` only passes through the package; any other name is the package's own
        yield target, not names or len(submodules) < len(names)
    yield from ((sub, True) for sub in submodules)


@functools.cache
def _edges(path: Path, package: Path, fully: bool, stamp: tuple[int, int]) -> tuple[tuple[Path, bool], ...]:
    """The files importing ``path`` runs (all its imports, or only its module-level ones), once per file version."""
    read = _read(path, package.parent, stamp)
    pairs = read.imports if fully else read.top_imports
    return tuple(dict.fromkeys(t for module, names in pairs for t in _targets(module, names, package.parent, package.name)))


def closure(starts: Iterable[Path], package: Path) -> tuple[Path, ...]:
    """Every file of ``package`` (the folder of a top-level package) that importing ``starts`` may run,
    ``starts`` included, sorted."""
    whole: set[Path] = set()
    passed: set[Path] = set()
    todo: list[tuple[Path, bool]] = [(path.resolve(), True) for path in starts]
    while todo:
        path, fully = todo.pop()
        if path in whole or (not fully and path in passed):
            continue
        (whole if fully else passed).add(path)
        todo.extend(_edges(path, package, fully, _stamp(path)))
    return tuple(sorted(whole | passed))


def fingerprint(files: Iterable[Path], package: Path) -> str:
    """A hash of what ``files`` mean (each named relative to the folder holding ``package``)."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(package.parent).as_posix().encode("utf-8") + b"\0")
        digest.update(reading(path, package.parent).meaning.encode("ascii") + b"\0")
    save_readings()  # nothing to write once this run's files are read
    return digest.hexdigest()
