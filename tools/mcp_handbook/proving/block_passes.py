"""Blocks no probe proves, remembered when they passed, so the quick loop leaves out those whose inputs are the same.

A manual rule's code runs in a process of its own, against its promise, or through its language's checker
(``promises/``); some start the reference server or a client and take 10 to 25 s. Nothing records them the way
``snippets/evidence.json`` records a probe's proof, so before this every quick loop ran them all again. A pass is
kept in the user's cache folder (never in the checkout: CI and a full run always run every block), under a key of
everything the run reads: the block's text and options, the meaning of the code that runs it (``promises/``, by
its import closure, comments and docstrings left out), of the reference server, and the interpreter and SDK
versions. Any change to one of them is a new key: the block runs again.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Iterable
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from ..model import Rule, Snippet
from ..parse_cache import cache_dir
from . import depends
from .evidence import PACKAGE, server_folder

FILE = "block-passes.json"
MAX_KEPT = 5000
"""Keys kept at most (the newest); a doctrine has a few hundred blocks, and old keys are never read again."""


@cache
def _runner_fingerprint() -> str:
    """What every block's run depends on besides the block: the promise runner's code, the reference server's,
    the interpreter, and the SDK a block may import."""
    starts = sorted((PACKAGE / "promises").glob("*.py"))
    parts = [depends.fingerprint(depends.closure(starts, PACKAGE), PACKAGE)]
    server = server_folder()
    if server is not None:
        parts.append(depends.fingerprint(depends.closure([server / "__main__.py"], server), server))
    try:
        sdk = version("mcp")
    except PackageNotFoundError:
        sdk = "none"
    return ":".join([*parts, sys.version, sdk])


def block_key(rule: Rule, block: Snippet) -> str:
    digest = hashlib.sha256()
    for part in (rule.id, block.kind, block.language, block.promise or "", block.norun or "", block.code,
                 _runner_fingerprint()):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def _kept() -> list[str]:
    """The kept keys, oldest first."""
    folder = cache_dir()
    if folder is None:
        return []
    try:
        data = json.loads((folder / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [k for k in data if isinstance(k, str)] if isinstance(data, list) else []


def load() -> set[str]:
    return set(_kept())


def remember(keys: Iterable[str]) -> None:
    """Add these passes to the kept ones, written atomically; a folder that cannot be written is ignored (several
    pytest workers may write at once: a key lost in the race only means one more run of its block)."""
    new = list(keys)
    folder = cache_dir()
    if folder is None or not new:
        return
    fresh = set(new)
    kept = ([k for k in _kept() if k not in fresh] + new)[-MAX_KEPT:]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=folder, prefix=".block-passes-", suffix=".json", delete=False,
                                         encoding="utf-8") as tmp:
            json.dump(kept, tmp)
        os.replace(tmp.name, Path(folder) / FILE)
    except OSError:
        try:
            os.unlink(tmp.name)
        except (OSError, UnboundLocalError):
            pass
