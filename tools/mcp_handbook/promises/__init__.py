"""Running every block no probe proves: manual rules' code and examples, in a process of their own, checked
against the promise they make where the rule makes one; blocks in other languages checked by the real tool.

``registry`` holds the tables; one module per gate registers its promises and preludes; ``languages`` is the
table of checks for blocks that are not Python; ``child`` is the process a Python block runs in; ``run`` judges
one block. Importing this package imports no block and no third-party library a block needs.
"""

from __future__ import annotations

import importlib
import pkgutil

from .registry import PRELUDES, PROMISES, Broken, Promise, prelude, promise

_SKIP = {"registry", "child", "run", "languages"}
for _module in pkgutil.iter_modules(__path__):
    if _module.name not in _SKIP and not _module.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_module.name}")

__all__ = ["PRELUDES", "PROMISES", "Broken", "Promise", "prelude", "promise"]
