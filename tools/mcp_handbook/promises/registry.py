"""The promise registry: ``@promise(...)`` registers a plain check ``(module) -> None`` under its name.

A block that no probe proves (a manual rule's code, an example) is run in a process of its own; when its fence
names ``promise=NAME``, the check runs on the module the block became. A check returns when the block keeps the
promise and raises :class:`Broken` with one of its own reasons when it breaks it; any other exception means the
block (or the check) is broken, never that the promise was broken. A CORRECT block must keep its promise, a
WRONG block must break it, as a probe judges a proved block.

A *prelude* is code run in the block's module before the block: the names a fragment uses without defining them
(``needs=NAME``), so a block on the page stays as short as the rule needs and still runs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType

Check = Callable[[ModuleType], None]


class Broken(Exception):
    """Raised by a check: the block broke its promise, for ``reason`` (one of the promise's own)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Promise:
    """A named, observable promise a block's code makes."""

    name: str
    title: str
    """What is checked, in a phrase, for the page."""
    check: Check
    reasons: Mapping[str, str] = field(default_factory=dict)
    """The ways a block can break it: code -> meaning."""
    seconds: float = 30.0
    """How long the block's process may take, check included, before it is stopped and called broken."""
    source_file: str = ""


PROMISES: dict[str, Promise] = {}
PRELUDES: dict[str, str] = {}
"""Prelude name -> Python source run in the block's module before the block."""
PRELUDE_MODULES: dict[str, str] = {}
"""Prelude name -> the module that registered it (a block's process imports only the modules its block names)."""


def promise(name: str, title: str, *, reasons: Mapping[str, str], seconds: float = 30.0) -> Callable[[Check], Check]:
    """Register the decorated check as promise ``name``; ``reasons`` is how a block can break it."""
    if not reasons:
        raise ValueError(f"promise {name}: declare at least one reason a block can break it")

    def register(fn: Check) -> Check:
        if name in PROMISES:
            raise ValueError(f"promise {name!r} is registered twice")
        PROMISES[name] = Promise(name, title, fn, dict(reasons), seconds, getattr(fn, "__module__", ""))
        return fn

    return register


def prelude(name: str, source: str) -> None:
    """Register ``source`` as prelude ``name``."""
    if name in PRELUDES:
        raise ValueError(f"prelude {name!r} is registered twice")
    PRELUDES[name] = source
    PRELUDE_MODULES[name] = sys._getframe(1).f_globals.get("__name__", "")
