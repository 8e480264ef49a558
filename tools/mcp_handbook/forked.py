"""Compute a pure function in a forked child while this process goes on with other work.

Why: the site build is one long single-threaded mkdocs run, and these
machines have two cores. Work that needs only what is already in memory (the
downloads, lexing the code blocks) can run beside it in a child made by
``fork``: the child inherits the arguments, so nothing is pickled on the way
in, and sends back only its result.

The function must be deterministic and must not write files: when the child
fails or cannot be made (no ``fork``, or threads running, where forking is
unsafe, or ``MCP_HANDBOOK_NO_FORK=1``), ``result()`` simply calls the function here, so an error surfaces in
this process with its real traceback. The child is always waited for, and
killed by its PID if the result is never collected.
"""

from __future__ import annotations

import os
import pickle
import signal
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager as ContextManager, nullcontext
from typing import Any, Generic, TypeVar

T = TypeVar("T")
CHILD_NICENESS = 10
"""Children yield to this process (it is the one everything waits for); a child needed sooner
than others may be given a smaller ``nice``."""


NO_FORK_ENV = "MCP_HANDBOOK_NO_FORK"
"""Set to 1 to compute everything in this one process (debugging, or measuring what the children buy)."""


def can_fork() -> bool:
    """Forking is wanted and safe: not switched off, the platform has it, no other thread could hold a lock."""
    return os.environ.get(NO_FORK_ENV, "") in ("", "0") and hasattr(os, "fork") and threading.active_count() == 1


class Forked(Generic[T]):
    """``fn(*args)`` started in a child process; ``result()`` waits for it (or computes it here)."""

    def __init__(self, fn: Callable[..., T], *args: Any, nice: int = CHILD_NICENESS) -> None:
        self._fn, self._args = fn, args
        self._pid: int | None = None
        self._read_fd: int | None = None
        if not can_fork():
            return
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: compute, send, leave without running the parent's exit handlers
            status = 1
            try:
                os.close(read_fd)
                os.nice(nice)
                payload = pickle.dumps(fn(*args), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write_fd, "wb") as out:
                    out.write(payload)
                status = 0
            finally:
                os._exit(status)
        os.close(write_fd)
        self._pid, self._read_fd = pid, read_fd

    @property
    def pid(self) -> int | None:
        """The child's PID while it is outstanding; None when computed (or to be computed) here."""
        return self._pid

    def result(self) -> T:
        """The function's value: the child's when it succeeded, else computed now in this process."""
        if self._pid is None:
            return self._fn(*self._args)
        assert self._read_fd is not None
        with os.fdopen(self._read_fd, "rb") as pipe:
            payload = pipe.read()
        self._read_fd = None
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        if os.waitstatus_to_exitcode(status) == 0:
            return pickle.loads(payload)
        return self._fn(*self._args)  # the child failed: fail (or succeed) here, with a real traceback

    def when_forked(self, use: Callable[[Callable[[], T]], ContextManager[Any]]) -> ContextManager[Any]:
        """``use(self.result)`` when a child computes the value, else a context that does nothing.

        For work done ahead only to save time: without a child there is no time to save,
        so the build runs exactly as it would without the helper.
        """
        return use(self.result) if self._pid is not None else nullcontext()

    def cancel(self) -> None:
        """Stop an uncollected child by its PID and reap it (safe to call more than once)."""
        if self._read_fd is not None:
            os.close(self._read_fd)
            self._read_fd = None
        if self._pid is not None:
            try:
                os.kill(self._pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self._pid, 0)
            self._pid = None

    def __enter__(self) -> Forked[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()
