"""Running every block no probe proves: manual rules' code and examples, in a process of their own, checked
against the promise they make where the rule makes one; blocks in other languages checked by the real tool.

``registry`` holds the tables; one module per gate registers its promises and preludes (:func:`load_all` imports
them); ``languages`` is the table of checks for blocks that are not Python; ``child`` is the process a Python block
runs in, which imports only the modules its block names; ``run`` judges one block.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

from .registry import PRELUDES, PROMISES, Broken, Promise, prelude, promise

_NOT_CHECKS = {"registry", "child", "run", "languages"}


@functools.cache
def load_all() -> None:
    """Import every module that registers promises and preludes (one per gate)."""
    for module in pkgutil.iter_modules(__path__):
        if module.name not in _NOT_CHECKS and not module.name.startswith("_"):
            importlib.import_module(f"{__name__}.{module.name}")


__all__ = ["PRELUDES", "PROMISES", "Broken", "Promise", "load_all", "prelude", "promise"]
