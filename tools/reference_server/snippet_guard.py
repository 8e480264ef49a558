"""Say when a mounted snippet raises in its own code: the harness's cue that the snippet is broken.

A snippet replaces one seam (or adds a tool). Some exceptions are part of a seam's contract, the way
it refuses (``resolve_path`` raises ``PermissionError``); any other exception whose innermost
traceback frame is in the snippet's own file is a defect of the snippet, whatever the server does
with it next. The guard writes one stderr line for it, ``reference_server: [snippet-raised] NAME
Type: message at FILE:LINE``, and re-raises, so the server behaves exactly as without the guard.
An exception raised further in (a server helper the snippet calls, text the snippet evaluates) is
behaviour, not a defect, and is not reported.
"""
from __future__ import annotations

import functools
import os

from reference_server.logs import stderr_line, mask_environment

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MARK = "[snippet-raised]"
CALLED_FILE = "HB_SEAM_CALLED"
"""When this environment variable names a file, the first call of each mounted snippet function appends its
seam name there: how the harness knows a proof ran the block's code (a probe that never reaches the
block proves nothing about it). Nothing is written to stdout or stderr, so transcripts are unchanged."""
_called: set[str] = set()


def note_call(name: str) -> None:
    """Record that the snippet mounted at seam ``name`` ran (once per process)."""
    if name in _called:
        return
    _called.add(name)
    where = os.environ.get(CALLED_FILE)
    if where:
        with open(where, "a", encoding="utf-8") as out:
            out.write(name + "\n")


def _innermost(exc: BaseException) -> tuple[str, int]:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return (tb.tb_frame.f_code.co_filename, tb.tb_lineno) if tb is not None else ("", 0)


def report(name: str, path: str, exc: BaseException, allowed: tuple[type[BaseException], ...]) -> None:
    """Write the marker when ``exc`` was raised in the snippet's own code and is not in its contract."""
    if isinstance(exc, (*allowed, GeneratorExit, KeyboardInterrupt, SystemExit)):
        return
    filename, line = _innermost(exc)
    if filename and os.path.realpath(filename) == os.path.realpath(path):
        message = mask_environment(str(exc)).replace("\n", " ")[:300]
        stderr_line(f"reference_server: {MARK} {name} {type(exc).__name__}: {message} at {os.path.basename(path)}:{line}")


_CO_GENERATOR = 0x20
"""``inspect.CO_GENERATOR``: the flag is read here because importing ``inspect`` cost about 5 ms of a 45 to 65 ms start."""


def is_generator_function(function: object) -> bool:
    """``inspect.isgeneratorfunction``: through partials and bound methods to the code object's flags."""
    while isinstance(function, functools.partial):
        function = function.func
    function = getattr(function, "__func__", function)
    return bool(getattr(getattr(function, "__code__", None), "co_flags", 0) & _CO_GENERATOR)


def guard(name: str, function: Callable[..., Any], path: str, allowed: tuple[type[BaseException], ...] = ()) -> Callable[..., Any]:
    """``function`` (or generator function) from the snippet at ``path``, reporting its own exceptions."""
    if is_generator_function(function):
        @functools.wraps(function)
        def generator(*args: Any, **kwargs: Any) -> Any:
            note_call(name)
            try:
                return (yield from function(*args, **kwargs))
            except BaseException as exc:
                report(name, path, exc, allowed)
                raise
        return generator

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        note_call(name)
        try:
            return function(*args, **kwargs)
        except BaseException as exc:
            report(name, path, exc, allowed)
            raise
    return call
