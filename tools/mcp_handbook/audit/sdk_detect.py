"""Which official SDK a server is built on, read from its command: the Python SDK when the server's own code imports
``mcp`` (asked of the server's own interpreter), the TypeScript SDK when the entry script's package depends on
``@modelcontextprotocol/sdk`` (the copy node resolves from it). A command the auditor cannot read is not guessed at.

Apart from :mod:`.sdk_baseline`, which audits the minimal server of the SDK found here and compares verdicts."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

DETECT_SECONDS = 15.0
"""How long the server's interpreter may take to say which SDK it has (an import of importlib.metadata, a file scan)."""
SDK_PACKAGE = ("node_modules", "@modelcontextprotocol", "sdk", "package.json")


@dataclass(frozen=True, slots=True)
class Sdk:
    """The official SDK a server is built on, and how to run a minimal server on the same copy of it."""

    key: str
    """``python`` or ``typescript``: which minimal server of ``baselines/`` to run."""
    name: str
    version: str
    runner: str
    """The interpreter (Python) or ``node`` that runs the minimal server."""
    home: str = ""
    """The SDK's folder (TypeScript): the minimal server is run beside a link to it."""

    def describe(self) -> str:
        return f"{self.name} {self.version}"


_PYTHON = re.compile(r"^python[\d.]*$")
_NODE = re.compile(r"^node(js)?[\d.]*$")

_DETECT_PY = r'''
import importlib.metadata as md, importlib.util, json, os, re, sys
mode, name = json.loads(sys.argv[1])
uses = re.compile(r"^\s*(?:from\s+mcp(?:\.|\s)|import\s+mcp\b)", re.M)
def text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(262144)
    except OSError:
        return ""
def files_of(module):
    try:
        spec = importlib.util.find_spec(module)
    except Exception:
        return []
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return []
    if not spec.submodule_search_locations:
        return [spec.origin]
    found = []
    for folder, _dirs, names in os.walk(os.path.dirname(spec.origin)):
        found += [os.path.join(folder, n) for n in names if n.endswith(".py")]
        if len(found) > 400:
            break
    return found[:400]
if mode == "module":
    files = files_of(name.split(".")[0])
else:
    head = text(name)
    entry = re.search(r"^from\s+([\w.]+)\s+import\s+\w+\s*$", head, re.M)
    files = [name] + (files_of(entry.group(1).split(".")[0]) if entry else [])
if any(uses.search(text(f)) for f in files):
    try:
        print(md.version("mcp"))
    except md.PackageNotFoundError:
        pass
'''
"""Run by the server's own interpreter: the version of ``mcp`` when the server's own code imports it (the script, or
the package its console script calls); nothing otherwise. Having the SDK installed is not enough to be built on it."""


_SH_TRAMPOLINE = re.compile(rb"^'''exec' \"\$\(dirname -- \"\$\(realpath -- \"\$0\"\)\"\)\"/'(python[\d.]*)' \"\$0\" \"\$@\"$")
"""The second line of a console script that uv and pip write when an environment's path cannot go on a ``#!``
line (too long, or with spaces): a ``/bin/sh`` script that runs the ``python`` beside it on itself."""


def _shebang(program: str) -> list[str]:
    try:
        with open(program, "rb") as f:
            head = f.read(512).split(b"\n", 2)
    except OSError:
        return []
    line = head[0]
    if line.strip() == b"#!/bin/sh" and len(head) > 1 and (trampoline := _SH_TRAMPOLINE.match(head[1].strip())):
        return [os.path.join(os.path.dirname(os.path.realpath(program)), trampoline.group(1).decode())]
    if not line.startswith(b"#!"):
        return []
    parts = line[2:].decode("utf-8", "replace").split()
    if parts and os.path.basename(parts[0]) == "env":
        parts = [p for p in parts[1:] if not p.startswith("-")]
        found = shutil.which(parts[0]) if parts else None
        return [found, *parts[1:]] if found else []
    return parts


def _first_operand(args: Sequence[str]) -> str | None:
    return next((a for a in args if not a.startswith("-")), None)


def _python_sdk(argv: Sequence[str]) -> Sdk | None:
    program, args = argv[0], list(argv[1:])
    if _PYTHON.match(os.path.basename(program)):
        interpreter = program
        if "-m" in args and args.index("-m") + 1 < len(args):
            what = ["module", args[args.index("-m") + 1]]
        else:
            script = _first_operand(args)
            if script is None:
                return None
            what = ["script", os.path.abspath(script)]
    else:
        shebang = _shebang(program)
        if not shebang or not _PYTHON.match(os.path.basename(shebang[0])):
            return None
        interpreter, what = shebang[0], ["script", program]
    try:
        out = subprocess.run([interpreter, "-c", _DETECT_PY, json.dumps(what)], capture_output=True, text=True,
                             timeout=DETECT_SECONDS, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    version = out.stdout.strip()
    if out.returncode != 0 or not re.fullmatch(r"[\w.+!-]{1,40}", version):
        return None
    return Sdk("python", "the official Python SDK (mcp)", version, interpreter)


def _package_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8")[:1_000_000])
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _typescript_sdk(argv: Sequence[str]) -> Sdk | None:
    """The ``@modelcontextprotocol/sdk`` that node resolves from the entry script (the nearest ``node_modules`` that
    holds it, going up), when the package the entry script belongs to depends on it."""
    program = argv[0]
    if _NODE.match(os.path.basename(program)):
        node, entry = program, _first_operand(argv[1:])
    else:
        shebang = _shebang(program)
        if not shebang or not _NODE.match(os.path.basename(shebang[0])):
            return None
        node, entry = shebang[0], program
    if entry is None:
        return None
    start = Path(os.path.realpath(entry)).parent
    own = next((_package_json(d / "package.json") for d in (start, *start.parents) if (d / "package.json").is_file()), {})
    wanted = {k for field in ("dependencies", "peerDependencies") if isinstance(own.get(field), dict) for k in own[field]}
    if "@modelcontextprotocol/sdk" not in wanted:
        return None
    found = next((d.joinpath(*SDK_PACKAGE) for d in (start, *start.parents) if d.joinpath(*SDK_PACKAGE).is_file()), None)
    version = _package_json(found).get("version") if found else None
    if found is None or not isinstance(version, str) or not re.fullmatch(r"[\w.+-]{1,40}", version):
        return None
    return Sdk("typescript", "the official TypeScript SDK (@modelcontextprotocol/sdk)", version, node, str(found.parent))


DETECTORS: tuple[Callable[[Sequence[str]], Sdk | None], ...] = (_python_sdk, _typescript_sdk)
"""One plain function per SDK: the SDK the server command runs on, or None."""


def detect(argv: Sequence[str]) -> Sdk | None:
    """The official SDK the server command ``argv`` (its program absolute) is built on, or None when the auditor
    cannot tell: a command it does not know how to read (a wrapper, a container) is not guessed at."""
    if not argv:
        return None
    return next((sdk for find in DETECTORS if (sdk := find(argv)) is not None), None)
